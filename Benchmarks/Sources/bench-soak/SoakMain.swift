// bench-soak --url http://127.0.0.1:PORT/ [--requests N] [--in-flight N] [--seed N] [--timeout S]
//
// Issue 20's chaos soak (Benchmarks/soak runs it against bench-chaos): one HTTPSessionManager,
// N GETs (1,000,000 by default) with N in flight (64), each naming a fault the server injects
// (`/f/<fault>/<size>`, drawn from the seed). Every request must end as its fault says: the
// body byte for byte, or a NetworkError of a code that fault allows; none may outlive its
// timeout by more than the hang limit. It prints the figures the issue asks for (outcomes per
// fault, open descriptors against the baseline, peak RSS after the first 10,000 requests and at
// the end) and exits 1 when a bar is missed.
import Ferry
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

@main
enum SoakMain {
    static func main() async {
        let options: SoakOptions
        do {
            options = try SoakOptions(CommandLine.arguments.dropFirst())
        } catch {
            ProcessFigures.printError("bench-soak: \(error)")
            exit(2)
        }

        // The baseline: after a warm-up soak of 500 requests through a manager of its own,
        // invalidated and released, so that what the runtime creates once for the process
        // (Dispatch's epoll, eventfd and a timerfd per clock, made lazily) is counted in it.
        var warmUp = options
        warmUp.requests = 500
        _ = await run(warmUp)
        let settled = await ProcessFigures.descriptorsSettle()
        let baselineDescriptors = ProcessFigures.openDescriptors()
        let baselineKinds = ProcessFigures.descriptorKinds()

        let (soak, elapsed) = await run(options)
        // The manager is invalidated and released by now; its loops' descriptors close with it.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, ProcessFigures.openDescriptors() > baselineDescriptors {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let endKinds = ProcessFigures.descriptorKinds()
        // The counts can match while a socket took the place of a runtime descriptor: the
        // kinds must match too; and a baseline that never settled, or figures /proc did not
        // give, prove nothing.
        var failures: [String] = []
        if endKinds != baselineKinds { failures.append("the open descriptors differ from the baseline's (listed below)") }
        if !settled { failures.append("the descriptors never settled after the warm-up") }
        if baselineKinds.isEmpty || ProcessFigures.peakResidentKiB() == 0 { failures.append("/proc gave no figures") }
        let report = soak.report(elapsed: elapsed, baselineDescriptors: baselineDescriptors,
                                 endDescriptors: ProcessFigures.openDescriptors(), endPeakKiB: ProcessFigures.peakResidentKiB(),
                                 failures: failures)
        print(report.text)
        if endKinds != baselineKinds {
            print("  descriptors before: \(baselineKinds.joined(separator: ", "))")
            print("  descriptors after:  \(endKinds.joined(separator: ", "))")
        }
        exit(report.passed ? 0 : 1)
    }

    /// Runs the soak through a manager of its own, then invalidates it (letting nothing run:
    /// every request has ended) and waits for the session to say it is invalid.
    private static func run(_ options: SoakOptions) async -> (Soak, Duration) {
        var configuration = SessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = options.inFlight
        configuration.timeoutIntervalForRequest = options.timeout
        let manager = HTTPSessionManager(baseURL: options.url, sessionConfiguration: configuration)
        manager.responseSerializer = HTTPResponseSerializer()
        let soak = Soak(options: options)
        let started = ContinuousClock.now
        await soak.run(through: manager)
        let elapsed = ContinuousClock.now - started
        await withCheckedContinuation { continuation in
            manager.setSessionDidBecomeInvalid { _, _ in continuation.resume() }
            manager.invalidateSessionCancelingTasks(false, resetSession: false)
        }
        return (soak, elapsed)
    }
}
