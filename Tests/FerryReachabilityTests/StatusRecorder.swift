@testable import FerryReachability
import FerryBase
import FerryIO
import Synchronization
import TestSupport
import Testing

/// Watches a manager's ``NetworkReachabilityManager/statusUpdates`` and times each
/// transition the tests cause, from the `ip` change to the status arriving.
final class StatusRecorder: Sendable {
    /// The statuses with the time each arrived (a class: the reader task shares it).
    private final class Log: Sendable {
        let entries = Locked<[(status: NetworkReachabilityStatus, at: ContinuousClock.Instant)]>([])
    }

    private let log = Log()
    private let reader: Task<Void, Never>
    let manager: NetworkReachabilityManager
    private let label: String

    /// A manager for `target` in `namespace`, recorded from its first status on.
    init(_ target: ReachabilityStateMachine.Target, in namespace: NetworkNamespace, label: String,
         environment: NetworkReachabilityManager.Environment? = nil) {
        manager = NetworkReachabilityManager(target: target, environment: environment ?? .namespace(at: namespace.path))
        self.label = label
        let updates = manager.statusUpdates
        let log = self.log
        reader = Task {
            for await status in updates {
                log.entries.withLock { $0.append((status, ContinuousClock.now)) }
            }
        }
    }

    deinit {
        reader.cancel()
    }

    /// The statuses seen so far.
    var statuses: [NetworkReachabilityStatus] { log.entries.withLock { $0.map(\.status) } }

    /// Starts monitoring (on a thread of its own: opening a socket in another namespace joins
    /// a helper thread) and waits for the first status.
    func start(expecting status: NetworkReachabilityStatus, sourceLocation: SourceLocation = #_sourceLocation) async {
        await transition("start monitoring", to: status, sourceLocation: sourceLocation) {
            try await self.manager.startMonitoringOffThePool()
        }
    }

    func stop() {
        manager.stopMonitoring()
    }

    /// Runs `change` and expects `status` to arrive within 1 s after it returned (the issue's
    /// functional deadline), printing the latency measured.
    func transition(
        _ what: String, to status: NetworkReachabilityStatus, sourceLocation: SourceLocation = #_sourceLocation,
        _ change: () async throws -> Void
    ) async {
        let mark = log.entries.withLock { $0.count }
        let started = ContinuousClock.now
        do {
            try await change()
        } catch {
            Issue.record("\(label): \(what): \(error)", sourceLocation: sourceLocation)
            return
        }
        let changed = ContinuousClock.now
        let arrived = await waitUntil(timeout: .seconds(1)) {
            log.entries.withLock { $0.dropFirst(mark).contains { $0.status == status } }
        }
        let history = statuses
        guard arrived, let at = log.entries.withLock({ $0.dropFirst(mark).first { $0.status == status }?.at }) else {
            Issue.record("\(label): \(what): \(status) not observed within 1 s; saw \(history)", sourceLocation: sourceLocation)
            return
        }
        print("ferry-reach latency | \(label) | \(what) -> \(status) | \(Self.milliseconds(at - changed)) ms after the change returned | \(Self.milliseconds(at - started)) ms after it started")
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return String(Int(value.rounded()))
    }
}

extension NetworkReachabilityManager {
    /// ``startMonitoring()`` on a thread of its own, never on the cooperative pool: opening a
    /// socket in another namespace joins a helper thread.
    func startMonitoringOffThePool() async throws(ReachabilityError) {
        let failure = await offThePool { () -> ReachabilityError? in
            do throws(ReachabilityError) {
                try self.startMonitoring()
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }
}
