import FerryBase
import Dispatch
@testable import FerryReachability
import FerryIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// Real rtnetlink in a private network namespace per test: veth pairs, addresses and routes
/// made with `ip -n`, statuses observed through the public manager within 1 s. Documentation
/// prefixes only (192.0.2.0/24, 198.51.100.0/24, 2001:db8::/32); no packet is sent.
@Suite(.enabled(NetworkNamespace.skipReason) { await NetworkNamespace.isAvailable() })
struct LiveReachabilityTests {
    static let veth = NetworkReachabilityStatus.reachable(via: .ethernet, interface: "frv0")

    /// `frv0` (monitored) and its peer `frv1`, both up, both inside the namespace.
    private func addVeth(_ namespace: NetworkNamespace) async throws {
        try await namespace.ip("link", "add", "frv0", "type", "veth", "peer", "name", "frv1")
        try await namespace.ip("link", "set", "frv1", "up")
        try await namespace.ip("link", "set", "frv0", "up")
    }

    @Test func onlyLoopbackIsNotReachable() async throws {
        try await NetworkNamespace.with { namespace in
            try await namespace.ip("link", "set", "lo", "up")
            let recorder = StatusRecorder(.internet, in: namespace, label: "loopback only")
            await recorder.start(expecting: .notReachable)
            recorder.stop()
        }
    }

    @Test func anIPv4DefaultRouteFollowsTheLinkAndTheRoute() async throws {
        try await NetworkNamespace.with { namespace in
            let recorder = StatusRecorder(.internet, in: namespace, label: "IPv4 default route")
            await recorder.start(expecting: .notReachable)
            try await addVeth(namespace)
            try await namespace.ip("address", "add", "192.0.2.2/24", "dev", "frv0")
            await recorder.transition("route add default", to: Self.veth) {
                try await namespace.ip("route", "add", "default", "via", "192.0.2.1")
            }
            await recorder.transition("link down", to: .notReachable) {
                try await namespace.ip("link", "set", "frv0", "down")
            }
            await recorder.transition("link up + route add default", to: Self.veth) {
                try await namespace.ip("link", "set", "frv0", "up")
                try await namespace.ip("route", "add", "default", "via", "192.0.2.1")
            }
            await recorder.transition("route del default", to: .notReachable) {
                try await namespace.ip("route", "del", "default")
            }
            await recorder.transition("route add default again", to: Self.veth) {
                try await namespace.ip("route", "add", "default", "via", "192.0.2.1")
            }
            await recorder.transition("address del", to: .notReachable) {
                try await namespace.ip("address", "del", "192.0.2.2/24", "dev", "frv0")
            }
            recorder.stop()
        }
    }

    /// AFNetworking's two callbacks: the handler, then the notification (object: the manager,
    /// the status in userInfo), each change once, in order, on the handler's queue.
    @Test func theHandlerAndTheNotificationDeliverEachChangeOnTheQueue() async throws {
        try await NetworkNamespace.with { namespace in
            let queue = DispatchQueue(label: "reachability-delivery")
            let onQueue = DispatchSpecificKey<Bool>()
            queue.setSpecific(key: onQueue, value: true)
            let events = Locked<[String]>([])
            let recorder = StatusRecorder(.internet, in: namespace, label: "handler and notification")
            let manager = recorder.manager
            manager.setStatusChangeHandler(queue: queue) { status in
                let place = DispatchQueue.getSpecific(key: onQueue) == true ? "queue" : "elsewhere"
                events.withLock { $0.append("handler \(status) on \(place)") }
            }
            let observer = NotificationCenter.default.addObserver(
                forName: NetworkReachabilityManager.statusDidChangeNotification, object: manager, queue: nil
            ) { notification in
                let place = DispatchQueue.getSpecific(key: onQueue) == true ? "queue" : "elsewhere"
                let status = notification.userInfo?[NetworkReachabilityManager.statusUserInfoKey] as? NetworkReachabilityStatus
                let sender = (notification.object as AnyObject?) === manager ? "manager" : "another sender"
                events.withLock { $0.append("notification \(status.map { "\($0)" } ?? "no status") from \(sender) on \(place)") }
            }
            defer { NotificationCenter.default.removeObserver(observer) }

            await recorder.start(expecting: .notReachable)
            try await addVeth(namespace)
            try await namespace.ip("address", "add", "192.0.2.2/24", "dev", "frv0")
            await recorder.transition("route add default", to: Self.veth) {
                try await namespace.ip("route", "add", "default", "via", "192.0.2.1")
            }
            queue.sync {}  // both callbacks of the last change have run
            recorder.stop()
            #expect(events.withLock { $0 } == [
                "handler \(NetworkReachabilityStatus.notReachable) on queue",
                "notification \(NetworkReachabilityStatus.notReachable) from manager on queue",
                "handler \(Self.veth) on queue",
                "notification \(Self.veth) from manager on queue",
            ])
        }
    }

    @Test func anIPv6DefaultRouteAloneIsEnough() async throws {
        try await NetworkNamespace.with { namespace in
            try await addVeth(namespace)
            let recorder = StatusRecorder(.internet, in: namespace, label: "IPv6 default route")
            await recorder.start(expecting: .notReachable)
            // nodad: the address is usable at once instead of tentative for a second or two.
            try await namespace.ip("-6", "address", "add", "2001:db8:1::2/64", "dev", "frv0", "nodad")
            await recorder.transition("route add default (IPv6)", to: Self.veth) {
                try await namespace.ip("-6", "route", "add", "default", "via", "2001:db8:1::1")
            }
            await recorder.transition("address del (IPv6)", to: .notReachable) {
                try await namespace.ip("-6", "address", "del", "2001:db8:1::2/64", "dev", "frv0")
            }
            recorder.stop()
        }
    }

    @Test func destinationsInsideAndOutsideTheRoutedPrefixes() async throws {
        try await NetworkNamespace.with { namespace in
            try await addVeth(namespace)
            try await namespace.ip("address", "add", "192.0.2.2/24", "dev", "frv0")
            try await namespace.ip("-6", "address", "add", "2001:db8:1::2/64", "dev", "frv0", "nodad")
            let inside4 = StatusRecorder(.address(IPAddress("192.0.2.55")!), in: namespace, label: "192.0.2.55 (inside)")
            let outside4 = StatusRecorder(.address(IPAddress("198.51.100.7")!), in: namespace, label: "198.51.100.7 (outside)")
            let inside6 = StatusRecorder(.address(IPAddress("2001:db8:1::55")!), in: namespace, label: "2001:db8:1::55 (inside)")
            let outside6 = StatusRecorder(.address(IPAddress("2001:db8:ffff::7")!), in: namespace, label: "2001:db8:ffff::7 (outside)")
            let all = [inside4, outside4, inside6, outside6]
            await inside4.start(expecting: Self.veth)
            await outside4.start(expecting: .notReachable)
            await inside6.start(expecting: Self.veth)
            await outside6.start(expecting: .notReachable)
            await outside4.transition("route add 198.51.100.0/24", to: Self.veth) {
                try await namespace.ip("route", "add", "198.51.100.0/24", "via", "192.0.2.1")
            }
            await outside6.transition("route add default (IPv6)", to: Self.veth) {
                try await namespace.ip("-6", "route", "add", "default", "via", "2001:db8:1::1")
            }
            await outside4.transition("route del 198.51.100.0/24", to: .notReachable) {
                try await namespace.ip("route", "del", "198.51.100.0/24")
            }
            await inside4.transition("link down", to: .notReachable) {
                try await namespace.ip("link", "set", "frv0", "down")
            }
            for recorder in all {
                let settled = await waitUntil(timeout: .seconds(1)) { recorder.statuses.last == .notReachable }
                #expect(settled, "every destination is unreachable once the link is down: \(recorder.statuses)")
                recorder.stop()
            }
        }
    }

    @Test func aHostNameIsResolvedAndLookedUp() async throws {
        try await NetworkNamespace.with { namespace in
            // "localhost" comes from /etc/hosts (no DNS); its addresses route through the
            // namespace's loopback, which starts down.
            let recorder = StatusRecorder(.host("localhost"), in: namespace, label: "localhost")
            await recorder.start(expecting: .notReachable)
            await recorder.transition("lo up", to: .reachable(via: .other, interface: "lo")) {
                try await namespace.ip("link", "set", "lo", "up")
            }
            recorder.stop()
        }
    }

    /// A burst of 200 addresses arrives while the monitor's loop is held busy and its socket
    /// has the smallest receive buffer the kernel allows: the kernel drops messages
    /// (ENOBUFS), the monitor dumps again, and the status is still right.
    @Test func lostMessagesAreRepairedByAFreshDump() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        try await NetworkNamespace.with { namespace in
            try await addVeth(namespace)
            let losses = Atomic<Int>(0)
            var environment = NetworkReachabilityManager.Environment.namespace(at: namespace.path, receiveBufferSize: 1)
            environment.onMessagesLost = { losses.add(1, ordering: .relaxed) }
            environment.loop = group.loops[0]
            let recorder = StatusRecorder(.internet, in: namespace, label: "ENOBUFS burst", environment: environment)
            await recorder.start(expecting: .notReachable)
            let burst = (1...200).map { "address add 198.51.100.\($0)/32 dev frv0" }
                + ["address add 192.0.2.2/24 dev frv0", "route add default via 192.0.2.1"]
            await recorder.transition("200 addresses + default route, loop busy until ip returned", to: Self.veth) {
                // The loop's own thread waits (not the test's pool) until the burst is in.
                let released = DispatchSemaphore(value: 0)
                group.loops[0].execute { _ = released.wait(timeout: .now() + 10) }
                defer { released.signal() }
                try await namespace.batch(burst)
            }
            #expect(losses.load(ordering: .relaxed) > 0, "the burst should have overflowed the socket")
            print("ferry-reach: ENOBUFS burst: \(losses.load(ordering: .relaxed)) loss report(s), statuses \(recorder.statuses)")
            recorder.stop()
        }
        await offThePool { group.shutdownGracefully() }
    }
}
