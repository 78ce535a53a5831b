import BenchSupport
import Dispatch
import Glibc

/// One client process, measured by the kernel: wait4's rusage gives its user and system CPU and
/// peak RSS; the wall time is taken around it here.
///
/// The client runs under `bench-launch` (started with posix_spawn), which forks it and reports
/// its rusage: a process spawned straight from this driver would inherit the driver's own peak
/// RSS in its `ru_maxrss` (see Sources/bench-launch/main.c).
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

    /// The `bench-launch` binary.
    let launcher: String
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

        let reportPath = stdoutPath + ".rusage"
        unlink(reportPath)
        let launched = [launcher, reportPath] + argv
        let start = monotonicSeconds()
        var pid: pid_t = 0
        let spawned = withCStrings(launched) { cArgv in
            withCStrings(envStrings) { cEnv in
                posix_spawn(&pid, launcher, &actions, nil, cArgv, cEnv)
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
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        defer { unlink(reportPath) }
        guard let report = readFile(reportPath), let fields = Self.parse(report) else {
            if fired.isSet {
                return Outcome(exitCode: -1, signal: SIGKILL, timedOut: true, userSeconds: 0, systemSeconds: 0,
                               wallSeconds: wall, maxRSSKiB: 0)
            }
            throw BenchError("bench-launch reported nothing for \(argv[0]) (status \(status))")
        }
        return Outcome(
            exitCode: Int32(fields["exit"] ?? -1),
            signal: Int32(fields["signal"] ?? 0),
            timedOut: fired.isSet,
            userSeconds: Double(fields["utime_us"] ?? 0) / 1_000_000,
            systemSeconds: Double(fields["stime_us"] ?? 0) / 1_000_000,
            wallSeconds: wall,
            maxRSSKiB: fields["maxrss_kib"] ?? 0)
    }

    /// Parses bench-launch's `key=value` line; nil unless every field is there.
    static func parse(_ report: String) -> [String: Int]? {
        var fields: [String: Int] = [:]
        for pair in report.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Int(parts[1]) else { return nil }
            fields[String(parts[0])] = value
        }
        let keys = ["exit", "signal", "utime_us", "stime_us", "maxrss_kib"]
        return keys.allSatisfy { fields[$0] != nil } ? fields : nil
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
