import Ferry
import Foundation
import TestSupport

/// Temporary files and body collection for the multipart tests.
enum MultipartFixtures {
    /// A new empty directory; the caller removes it with ``remove(_:)``.
    static func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-multipart-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return url
    }

    /// Removes a directory made by ``makeDirectory()``.
    static func remove(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes `bytes` to `name` in `directory`.
    @discardableResult
    static func write(_ bytes: some Sequence<UInt8>, named name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    /// The whole body and the size of each chunk it came in.
    static func collect(_ stream: MultipartBodyStream) async throws -> (bytes: [UInt8], chunkSizes: [Int]) {
        var bytes: [UInt8] = []
        var sizes: [Int] = []
        for try await chunk in stream {
            bytes += chunk
            sizes.append(chunk.count)
        }
        return (bytes, sizes)
    }

    /// The body of a form as text (for bodies that are text).
    static func text(_ form: MultipartFormData) async throws -> String {
        String(decoding: try await collect(form.bodyStream).bytes, as: UTF8.self)
    }

    /// Whether `python3` can be run (the independent-parser test needs it).
    static let hasPython3: Bool = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") }
    }()

    /// Runs `python3 -c script arguments…` and returns what it printed. Through TestSupport's
    /// `CommandRunner` (posix_spawn): Foundation's `Process` over-reads in `run()` (see
    /// `ChildProcess`) and its `waitUntilExit()` would park a cooperative-pool thread.
    static func python3(_ script: String, _ arguments: [String]) async throws -> Data {
        guard let python = CommandRunner.systemTool("python3") else {
            throw CocoaError(.executableNotLoadable, userInfo: [NSLocalizedDescriptionKey: "python3 is not installed"])
        }
        let result = try await CommandRunner.run(python, ["-c", script] + arguments)
        guard result.status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "python3: \(result)"])
        }
        return Data(result.stdout)
    }
}
