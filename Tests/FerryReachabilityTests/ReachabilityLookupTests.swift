import Dispatch
import FerryBase
import FerryIO
@testable import FerryReachability
import Glibc
import Synchronization
import TestSupport
import Testing

/// Host-name managers share the resolver's threads: one that stops must not leave its lookup
/// in the queue ahead of the others'. A private network namespace per test, nothing changed in
/// it; the lookups are the test's own, so no name reaches a DNS server.
@Suite(.enabled(NetworkNamespace.skipReason) { await NetworkNamespace.isAvailable() })
struct ReachabilityLookupTests {
    @Test("a manager stopped while its lookup waits for the resolver's thread makes no lookup")
    func aStoppedManagersQueuedLookupIsSkipped() async throws {
        let gate = DispatchSemaphore(value: 0)
        let busy = AsyncEvent()
        let wanted = AsyncEvent()
        let looked = Locked<[String]>([])
        let resolver = Resolver(threadCount: 1) { host, _ in
            looked.withLock { $0.append(host) }
            switch host {
            case "busy.test":
                busy.set()
                // Bounded, so a failed test leaves no worker parked; the test opens it.
                _ = gate.wait(timeout: .now() + .seconds(120))
            case "wanted.test":
                wanted.set()
            default:
                break
            }
            return .failure(DNSError(host: host, code: EAI_NONAME))
        }
        defer { resolver.shutdown() }
        try await NetworkNamespace.with { namespace in
            var environment = NetworkReachabilityManager.Environment.namespace(at: namespace.path)
            environment.resolver = resolver
            func started(_ host: String) async throws -> NetworkReachabilityManager {
                let manager = NetworkReachabilityManager(target: .host(host), environment: environment)
                try await manager.startMonitoringOffThePool()
                return manager
            }
            // The one worker is busy with the first name.
            let first = try await started("busy.test")
            #expect(await busy.wait(timeout: .seconds(30)))
            // The second manager's lookup queues behind it, and the manager stops.
            let stopped = try await started("stopped.test")
            let queued = await waitUntil { resolver.queuedLookupsForTests == 1 }
            #expect(queued, "the second manager asked for its lookup")
            stopped.stopMonitoring()
            // A third queues behind the second (its start runs on the loop after the stop):
            // once its lookup is made, the worker has passed the second one.
            let third = try await started("wanted.test")
            let bothQueued = await waitUntil { resolver.queuedLookupsForTests == 2 }
            #expect(bothQueued, "the third manager asked for its lookup")
            gate.signal()
            #expect(await wanted.wait(timeout: .seconds(30)))
            #expect(looked.withLock { $0 } == ["busy.test", "wanted.test"], "no lookup for the stopped manager")
            first.stopMonitoring()
            third.stopMonitoring()
        }
    }
}
