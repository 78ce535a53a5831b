// Running `ip` and `ferry-reach` from tests, their output in files, on TestSupport's
// ChildProcess (no descriptor of the test process leaks into them, and they start with the
// default signal dispositions whatever the runner set, so SIGINT stops ferry-reach).
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport

/// A program started with posix_spawn, its standard output and error going to temporary
/// files (no pipe a test could forget to drain).
final class SpawnedProgram: Sendable {
    /// How a run ended and what it printed.
    struct Outcome: CustomStringConvertible {
        /// The exit status, or 128 plus the signal that ended it.
        var status: Int32
        var output: String
        var errorOutput: String
        var description: String { "exit \(status), stdout: \(output.debugDescription), stderr: \(errorOutput.debugDescription)" }
    }

    private let child: ChildProcess
    private let outputPath: String
    private let errorPath: String

    /// Starts `executable` with `arguments`, standard input from /dev/null.
    init(_ executable: String, _ arguments: [String]) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-reach-\(UUID().uuidString)").path
        outputPath = base + ".out"
        errorPath = base + ".err"
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let errors = open(errorPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { for fd in [input, output, errors] where fd >= 0 { close(fd) } }
        guard input >= 0, output >= 0, errors >= 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "open \(base)"])
        }
        child = try ChildProcess(executable: executable, arguments: arguments, directory: nil,
                                 stdin: input, stdout: output, stderr: errors)
    }

    deinit {
        // A test that threw before finish() leaves no program running behind it.
        child.send(SIGKILL)
        unlink(outputPath)
        unlink(errorPath)
    }

    /// What the program has written to standard output so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    /// What the program has written to standard error so far.
    var errorOutput: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Suspends until the program ends and reaps it; SIGKILL after `limit` (a hung child must
    /// not hang the suite). Call once.
    func finish(within limit: Duration = .seconds(30)) async -> Outcome {
        let (seconds, attoseconds) = limit.components
        child.kill(after: Double(seconds) + Double(attoseconds) * 1e-18) {}
        let status = switch await child.ending() {
        case .exited(let code): code
        case .signalled(let signal): 128 + signal
        }
        return Outcome(status: status, output: output, errorOutput: errorOutput)
    }

    /// Sends `signal` unless the program has already ended.
    func send(_ signal: Int32) {
        child.send(signal)
    }

    /// Runs a program to its end; SIGKILL after `limit`.
    static func run(_ executable: String, _ arguments: [String], limit: Duration = .seconds(20)) async throws -> Outcome {
        try await SpawnedProgram(executable, arguments).finish(within: limit)
    }
}
