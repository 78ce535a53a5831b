// Running `ip` and `ferry-reach` from tests, without Foundation's Process (see
// FerryCLITests/ChildProcess.swift for why) and without blocking the cooperative pool.
#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import Foundation
import Synchronization

/// A program started with posix_spawn, its standard output and error going to temporary
/// files (no pipe a test could forget to drain).
final class SpawnedProgram: Sendable {
    /// How a run ended and what it printed.
    struct Outcome: CustomStringConvertible {
        var status: Int32
        var output: String
        var errorOutput: String
        var description: String { "exit \(status), stdout: \(output.debugDescription), stderr: \(errorOutput.debugDescription)" }
    }

    let pid: pid_t
    private let outputPath: String
    private let errorPath: String
    /// True once the child has ended: no signal is sent after that (its pid may be reused).
    private let ended = Locked(false)

    /// Starts `executable` with `arguments`, standard input from /dev/null.
    init(_ executable: String, _ arguments: [String]) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-reach-\(UUID().uuidString)").path
        outputPath = base + ".out"
        errorPath = base + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard code == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(executable)"])
        }
        self.pid = pid
    }

    deinit {
        unlink(outputPath)
        unlink(errorPath)
    }

    /// What the program has written to standard output so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    /// What the program has written to standard error so far.
    var errorOutput: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Suspends until the program ends (waiting on a thread of its own) and reaps it.
    func finish() async -> Outcome {
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread { [self] in
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
                ended.withLock { $0 = true }
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
                continuation.resume(returning: raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f))
            }.start()
        }
        return Outcome(status: status, output: output, errorOutput: errorOutput)
    }

    /// Sends `signal` unless the program has already ended.
    func send(_ signal: Int32) {
        ended.withLock { ended in
            if !ended { _ = kill(pid, signal) }
        }
    }

    /// Runs a program to its end; SIGKILL after `limit` (a hung child must not hang the suite).
    static func run(_ executable: String, _ arguments: [String], limit: Duration = .seconds(20)) async throws -> Outcome {
        let program = try SpawnedProgram(executable, arguments)
        let watchdog = Task {
            try await Task.sleep(for: limit)
            program.send(SIGKILL)
        }
        defer { watchdog.cancel() }
        return await program.finish()
    }
}
