// Starting and awaiting a child process with posix_spawn, without Foundation's Process.
#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import Dispatch
import Foundation
import Synchronization

/// A child started with posix_spawn(3) that async code awaits without blocking a thread of the
/// cooperative pool.
///
/// Not Foundation's `Process`: on Linux (swift-corelibs-foundation up to Swift 6.3.1)
/// `Process.run()` intermittently crashes with a SIGSEGV in `findMaximumOpenFromProcSelfFD()`,
/// a 256-byte over-read of `dirent.d_name` (fixed upstream in swift-corelibs-foundation
/// #5472). A suite that spawns many children while holding many descriptors hit it in about
/// one full run in six.
public final class ChildProcess: Sendable {
    /// How the child ended.
    public enum Ending: Sendable, Equatable {
        /// It called exit with this status.
        case exited(Int32)
        /// It was killed by this signal.
        case signalled(Int32)

        /// The exit status, or the signal number like `Process.terminationStatus`.
        public var status: Int32 {
            switch self {
            case .exited(let code), .signalled(let code): code
            }
        }
    }

    /// The child's process id.
    public let pid: pid_t
    /// Whether the child has ended (set before it is reaped, so `kill` never hits a reused pid).
    private let ended = Locked(false)

    /// Starts `executable` with `arguments`, in `directory`, with the given descriptors as its
    /// standard input, output and error. The caller keeps (and closes) its own descriptors.
    /// - Parameters:
    ///   - executable: the program's path (not looked up in `PATH`).
    ///   - arguments: the arguments after the program name.
    ///   - directory: the child's working directory; nil keeps ours.
    ///   - stdin: the descriptor the child reads as standard input.
    ///   - stdout: the descriptor for its standard output.
    ///   - stderr: the descriptor for its standard error.
    ///   - environment: variables added to (or replacing) this process's in the child's.
    /// - Throws: an `NSError` in the POSIX domain when posix_spawn fails.
    public init(
        executable: String, arguments: [String], directory: String?,
        stdin: Int32, stdout: Int32, stderr: Int32, environment: [String: String] = [:]
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        if let directory {
            guard let addChdir = Self.addChdir else { throw Self.failure("posix_spawn_file_actions_addchdir_np", ENOSYS) }
            let result = addChdir(&actions, directory)
            guard result == 0 else { throw Self.failure("posix_spawn_file_actions_addchdir_np", result) }
        }
        // Like Process: the child gets no other descriptor of ours, default signal handling
        // and an empty signal mask, whatever the test runner set up.
        if let addCloseFrom = Self.addCloseFrom { _ = addCloseFrom(&actions, 3) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Self.failure("posix_spawn \(executable)", result) }
        self.pid = pid
    }

    private static func failure(_ what: String, _ code: Int32) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: what])
    }

    // glibc's GNU extensions (2.29 and 2.34) are not imported without _GNU_SOURCE: look them up.
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")
    private static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")

    private static func symbol<T>(_ name: String) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: T.self)
    }

    /// Suspends until the child ends and reaps it. Call once. The wait itself runs on a
    /// thread of its own.
    /// - Returns: how the child ended.
    public func ending() async -> Ending {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                var info = siginfo_t()
                // Wait without reaping, mark the child ended, then reap: `kill(after:)` checks
                // the mark under the same lock, so it can never signal a recycled pid.
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
                ended.withLock { $0 = true }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let signal = status & 0x7f
                continuation.resume(returning: signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal))
            }
            thread.start()
        }
    }

    /// Sends `signal` unless the child has ended (its pid may belong to another process then).
    /// - Returns: whether the signal was sent.
    @discardableResult
    public func send(_ signal: Int32) -> Bool {
        ended.withLock { ended in !ended && Glibc.kill(pid, signal) == 0 }
    }

    /// Sends SIGKILL after `seconds` if the child is still running.
    /// - Parameters:
    ///   - seconds: how long to let it run.
    ///   - onKill: called when the signal was sent.
    public func kill(after seconds: TimeInterval, onKill: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            if send(SIGKILL) { onKill() }
        }
    }
}
