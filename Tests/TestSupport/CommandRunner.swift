// Running a program (a built product, curl, openssl) to completion and capturing its output.
#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import Foundation
import Synchronization

/// What one run of a program produced.
public struct CommandResult: Sendable, CustomStringConvertible {
    /// The exit status, or the signal number when it was killed.
    public var status: Int32
    /// Everything written to standard output.
    public var stdout: [UInt8]
    /// Standard error decoded as UTF-8.
    public var stderr: String
    /// Whether the run was killed at the time limit.
    public var timedOut: Bool

    /// Creates a result.
    /// - Parameters:
    ///   - status: the exit status.
    ///   - stdout: the bytes of standard output.
    ///   - stderr: the text of standard error.
    ///   - timedOut: whether it was killed at the time limit.
    public init(status: Int32, stdout: [UInt8], stderr: String, timedOut: Bool) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.timedOut = timedOut
    }

    /// Standard output decoded as UTF-8.
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

    /// Standard error split at each LF byte (a CR before it stays: `-v` head lines end with
    /// CRLF), without the empty piece after the last newline.
    public var stderrLines: [String] {
        Array(stderr.utf8).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .dropLast().map { String(decoding: $0, as: UTF8.self) }
    }

    /// `status 0, stdout 12 bytes, stderr: …`.
    public var description: String {
        "status \(status)\(timedOut ? " (killed)" : ""), stdout \(stdout.count) bytes, stderr: \(stderr)"
    }
}

/// Runs programs as child processes for end-to-end tests, as a user's shell would.
///
/// Output goes to temporary files rather than pipes: a large output can never dead-lock the
/// child against a reader that is not reading. Children are started with ``ChildProcess``
/// (posix_spawn, not Foundation's `Process`) and awaited without blocking a cooperative-pool
/// thread; each run is killed after its time limit, so a hanging child fails its test instead
/// of stalling the suite.
public enum CommandRunner {
    /// Runs `executable` with `arguments` to completion.
    /// - Parameters:
    ///   - executable: the program's path.
    ///   - arguments: the arguments after the program name.
    ///   - directory: the working directory; a fresh temporary one when nil.
    ///   - input: what the child reads on standard input; `/dev/null` when nil.
    ///   - timeLimit: seconds after which the child is killed (``CommandResult/timedOut``).
    ///   - environment: variables added to (or replacing) this process's in the child's.
    /// - Returns: the exit status and the captured output.
    /// - Throws: when the scratch files cannot be made or the program cannot be started.
    public static func run(
        _ executable: String, _ arguments: [String], in directory: URL? = nil,
        input: [UInt8]? = nil, timeLimit: TimeInterval = 20, environment: [String: String] = [:]
    ) async throws -> CommandResult {
        let scratch = try TemporaryDirectory()
        let outURL = scratch.url.appendingPathComponent("stdout")
        let errURL = scratch.url.appendingPathComponent("stderr")
        let inURL = scratch.url.appendingPathComponent("stdin")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inURL.path, contents: Data(input ?? []))
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }
        let stdin = open(input == nil ? "/dev/null" : inURL.path, O_RDONLY | O_CLOEXEC)
        guard stdin >= 0 else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno)) }
        defer { close(stdin) }
        let child = try ChildProcess(
            executable: executable, arguments: arguments, directory: (directory ?? scratch.url).path,
            stdin: stdin, stdout: outHandle.fileDescriptor, stderr: errHandle.fileDescriptor,
            environment: environment)
        let killed = Locked(false)
        child.kill(after: timeLimit) { killed.withLock { $0 = true } }
        let status = await child.ending().status
        let stdout = (try? Data(contentsOf: outURL)).map(Array.init) ?? []
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return CommandResult(status: status, stdout: stdout, stderr: stderr, timedOut: killed.withLock { $0 })
    }

    /// A product of this package (`ferry`, `ferry-pin`): `environmentVariable`'s value when
    /// set, else next to the test bundle (SwiftPM puts products and the test runner in the same
    /// directory), else the package's `.build/debug`.
    /// - Parameters:
    ///   - name: the product's name.
    ///   - environmentVariable: a variable that may name the binary, such as `FERRY_BIN`.
    /// - Returns: the first candidate that is an executable file, else the last candidate.
    public static func builtProduct(named name: String, environmentVariable: String? = nil) -> URL {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        if let variable = environmentVariable, let path = ProcessInfo.processInfo.environment[variable], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path))
        }
        let runner = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        candidates.append(runner.deletingLastPathComponent().appendingPathComponent(name))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/\(name)"))
        return candidates.first { fileManager.isExecutableFile(atPath: $0.path) } ?? candidates[candidates.count - 1]
    }

    /// The first executable `name` in the directories of `PATH` (then `/usr/bin`), for system
    /// tools such as `curl` and `openssl`.
    /// - Parameter name: the program's name.
    /// - Returns: its path, or nil when it is not installed.
    public static func systemTool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
