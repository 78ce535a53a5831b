#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization

/// Runs the built `ferry` executable as a child process, as a user's shell would.
///
/// End-to-end tests go through the real binary (argument vector, exit status, the bytes on
/// standard output and standard error), not through `FerryTool.run`, so that `main`, signal
/// handling and process exit are covered too. Output goes to temporary files rather than
/// pipes: a large body can never dead-lock the child against a reader that is not reading.
/// The child is started with ``ChildProcess`` (posix_spawn), not Foundation's `Process`, and
/// awaited without blocking a cooperative-pool thread.
struct FerryProcess {
    /// What one run produced.
    struct Result: CustomStringConvertible {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        /// Whether the run was killed at the time limit.
        var timedOut: Bool

        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        /// Standard error split at each LF byte (a CR before it stays: `-v` head lines end with
        /// CRLF), without the empty piece after the last newline.
        var stderrLines: [String] {
            Array(stderr.utf8).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .dropLast().map { String(decoding: $0, as: UTF8.self) }
        }
        var description: String {
            "status \(status)\(timedOut ? " (killed)" : ""), stdout \(stdout.count) bytes, stderr: \(stderr)"
        }
    }

    /// The longest a run may take before it is killed.
    static let timeLimit: TimeInterval = 20

    /// The `ferry` binary: `FERRY_BIN`, else next to the test bundle (SwiftPM puts products
    /// and the test runner in the same directory), else the package's `.build/debug`.
    static let binary: URL = {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["FERRY_BIN"], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path))
        }
        let runner = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        candidates.append(runner.deletingLastPathComponent().appendingPathComponent("ferry"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("ferry"))
        if let root = packageRoot() {
            candidates.append(root.appendingPathComponent(".build/debug/ferry"))
        }
        return candidates.first { fileManager.isExecutableFile(atPath: $0.path) } ?? candidates.last!
    }()

    /// Walks up from this file to the directory holding `Package.swift`.
    private static func packageRoot() -> URL? {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Runs `ferry` with `arguments` in `directory` (a fresh temporary one when nil), standard
    /// input from /dev/null.
    static func run(_ arguments: [String], in directory: URL? = nil) async throws -> Result {
        let scratch = try TemporaryDirectory()
        let outURL = scratch.url.appendingPathComponent("stdout")
        let errURL = scratch.url.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard devNull >= 0 else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno)) }
        defer { close(devNull) }
        let child = try ChildProcess(
            executable: binary.path, arguments: arguments, directory: (directory ?? scratch.url).path,
            stdin: devNull, stdout: outHandle.fileDescriptor, stderr: errHandle.fileDescriptor)
        let killed = Mutex(false)
        child.kill(after: timeLimit) { killed.withLock { $0 = true } }
        let status = await child.ending().status
        let stdout = (try? Data(contentsOf: outURL)).map(Array.init) ?? []
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return Result(status: status, stdout: stdout, stderr: stderr, timedOut: killed.withLock { $0 })
    }

    /// ``run(_:in:)`` with the arguments spelled out.
    static func run(_ arguments: String..., in directory: URL? = nil) async throws -> Result {
        try await run(arguments, in: directory)
    }
}

/// A temporary directory removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The bytes of `name`, or nil when it does not exist.
    func contents(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path(name)).map(Array.init)
    }
}

/// Reads the JSON object an httpbin echo route returned.
func jsonObject(_ bytes: [UInt8]) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
}
