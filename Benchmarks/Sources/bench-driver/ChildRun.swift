import BenchSupport
import Dispatch
import Glibc

/// One client process, started with posix_spawn and measured by the kernel: wait4's rusage
/// gives its user and system CPU and peak RSS; the wall time is taken around it here.
struct ChildRun: Sendable {
    /// What the kernel reported for one finished child.
    struct Outcome: Sendable {
        var exitCode: Int32
        var signal: Int32
        var timedOut: Bool
        var userSeconds: Double
        var systemSeconds: Double
        var wallSeconds: Double
        var maxRSSKiB: Int
    }

    let argv: [String]
    let environment: [String: String]
    let stdoutPath: String
    let stderrPath: String
    let timeoutSeconds: Double

    /// Starts the child, waits for it (killing it with SIGKILL once the timeout passes), and
    /// returns its measurements.
    /// - Throws: ``BenchError`` when the process cannot be started.
    func run() throws(BenchError) -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var merged: [String: String] = [:]
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                merged[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            index += 1
        }
        merged.merge(environment) { _, new in new }
        let envStrings = merged.map { "\($0.key)=\($0.value)" }

        let start = monotonicSeconds()
        var pid: pid_t = 0
        let spawned = withCStrings(argv) { cArgv in
            withCStrings(envStrings) { cEnv in
                posix_spawnp(&pid, argv[0], &actions, nil, cArgv, cEnv)
            }
        }
        guard spawned == 0 else {
            throw BenchError("cannot start \(argv[0]): \(String(cString: strerror(spawned)))")
        }

        // The watchdog kills the child if it outlives the timeout. The child is not reaped until
        // the watchdog is cancelled (waitid with WNOWAIT), so its PID cannot be reused under it.
        let queue = DispatchQueue(label: "bench.watchdog")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let fired = FiredFlag()
        let childPID = pid
        timer.schedule(deadline: .now() + timeoutSeconds)
        timer.setEventHandler {
            fired.set()
            kill(childPID, SIGKILL)
        }
        timer.resume()
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let wall = monotonicSeconds() - start
        timer.cancel()
        queue.sync {} // a handler already running has finished

        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exited = (status & 0x7f) == 0
        return Outcome(
            exitCode: exited ? (status >> 8) & 0xff : -1,
            signal: exited ? 0 : status & 0x7f,
            timedOut: fired.isSet,
            userSeconds: seconds(usage.ru_utime),
            systemSeconds: seconds(usage.ru_stime),
            wallSeconds: wall,
            maxRSSKiB: usage.ru_maxrss)
    }

    private func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000
    }
}

/// Set once by the watchdog, read after it is cancelled.
private final class FiredFlag: @unchecked Sendable {
    // Written on the watchdog queue, read after `queue.sync {}` has ordered the two.
    private(set) var isSet = false
    func set() { isSet = true }
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000
}

/// Calls `body` with a NULL-terminated C array of the strings.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
