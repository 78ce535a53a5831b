#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// Starts this test binary again as a child process with extra environment variables, for a
/// test that needs a process-wide setting (an environment variable OpenSSL reads once) without
/// changing it in the parallel suite's own process. posix_spawn, not Foundation's `Process`,
/// which crashes intermittently on Linux (see FerryCLITests/ChildProcess.swift).
enum TestBinaryChild {
    /// Runs the binary with `arguments` and `environment` added to this process's, output
    /// discarded; returns its exit status (128 + signal when killed). The child is killed
    /// after `timeLimit` seconds. The wait runs on a thread of its own, off the pool.
    static func run(arguments: [String], environment: [String: String], timeLimit: TimeInterval) async throws -> Int32 {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(result), userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(executable)"])
        }
        let ended = Mutex(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit) { [pid] in
            // Under the lock that marks the child reaped, so a recycled pid is never signalled.
            ended.withLock { if !$0 { _ = kill(pid, SIGKILL) } }
        }
        return await withCheckedContinuation { continuation in
            Thread { [pid] in
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
                ended.withLock { $0 = true }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let signal = status & 0x7f
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xff : 128 + signal)
            }.start()
        }
    }
}
