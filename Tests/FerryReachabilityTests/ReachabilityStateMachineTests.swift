@testable import FerryReachability
import Testing

/// The state machine driven by scripted kernel messages, compared by its actions.
struct ReachabilityStateMachineTests {
    typealias F = NetlinkFixture
    typealias Action = ReachabilityStateMachine.Action

    static let up: UInt32 = 0x1_0043       // IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_LOWER_UP
    static let loopbackUp: UInt32 = 0x1_0049
    static let ethernet0 = NetworkReachabilityStatus.reachable(via: .ethernet, interface: "eth0")

    /// A machine with a pure classifier: ARPHRD_ETHER is ethernet, `wl*` is wifi.
    static func machine(_ target: ReachabilityStateMachine.Target = .internet) -> ReachabilityStateMachine {
        ReachabilityStateMachine(target: target, portID: F.monitorPort) { name, type in
            InterfaceClassifier.kind(
                name: name, hardwareType: type, sysfs: .init(isWireless: name.hasPrefix("wl")))
        }
    }

    /// Feeds every message of `bytes` and collects the actions.
    static func feed(_ machine: inout ReachabilityStateMachine, _ bytes: [UInt8]) -> [Action] {
        let output = NetlinkParser.parse(bytes)
        #expect(output.problems.isEmpty, "fixture: \(output.problems)")
        return output.messages.flatMap { machine.received($0) }
    }

    /// Starts `machine` and answers the three dumps with `links`, `addresses` and `routes`
    /// (fixture messages without header fields: they are stamped as replies here).
    static func dump(
        _ machine: inout ReachabilityStateMachine, firstSequence: UInt32 = 1,
        links: [[UInt8]], addresses: [[UInt8]] = [], routes: [[UInt8]] = [], start: Bool = true
    ) -> [Action] {
        if start { #expect(machine.start() == [.send(.dumpLinks, sequence: firstSequence)]) }
        var actions: [Action] = []
        for (offset, part) in [links, addresses, routes].enumerated() {
            let sequence = firstSequence + UInt32(offset)
            let reply = part.map { stamp($0, sequence: sequence) }.reduce([], +) + F.done(sequence: sequence)
            actions = feed(&machine, reply)
            if offset < 2 {
                let next: NetlinkRequest = offset == 0 ? .dumpAddresses : .dumpRoutes
                #expect(actions == [.send(next, sequence: sequence + 1)])
            }
        }
        return actions
    }

    /// Sets a fixture message's sequence and port to those of a reply to this monitor.
    static func stamp(_ message: [UInt8], sequence: UInt32) -> [UInt8] {
        var message = message
        message.replaceSubrange(8..<16, with: F.bytes(of: sequence) + F.bytes(of: F.monitorPort))
        return message
    }

    static let loopback = F.link(index: 1, hardwareType: 772, flags: loopbackUp, name: "lo")
    static let eth0 = F.link(index: 2, flags: up, name: "eth0")
    static let eth0Address = F.address("192.0.2.2", prefix: 24, index: 2)
    static let defaultRoute = F.route(outputInterface: 2, gateway: "192.0.2.1")

    // MARK: - General reachability

    @Test func onlyLoopbackIsNotReachable() {
        var machine = Self.machine()
        let loopbackRoute = F.route(table: 255, type: 2, outputInterface: 1)
        let actions = Self.dump(
            &machine, links: [Self.loopback], addresses: [F.address("127.0.0.1", prefix: 8, index: 1, scope: 254)],
            routes: [loopbackRoute, F.route(outputInterface: 1, gateway: "127.0.0.2")])
        #expect(actions == [.report(.notReachable)], "a default route through loopback does not count")
    }

    @Test func aDefaultRouteThroughAnUpInterfaceWithAnAddressIsReachable() {
        var machine = Self.machine()
        let actions = Self.dump(&machine, links: [Self.loopback, Self.eth0], addresses: [Self.eth0Address], routes: [Self.defaultRoute])
        #expect(actions == [.report(Self.ethernet0)])
    }

    @Test(arguments: [
        (name: "link not running", link: F.link(index: 2, flags: 0x1003, name: "eth0"), address: eth0Address, route: defaultRoute),
        (name: "no address", link: eth0, address: F.address("fe80::1", prefix: 64, index: 2, scope: 253), route: defaultRoute),
        (name: "tentative address", link: eth0, address: F.address("192.0.2.2", prefix: 24, index: 2, flags: 0x40), route: defaultRoute),
        (name: "IPv6 route, IPv4 address", link: eth0, address: eth0Address, route: F.route(family: .ipv6, outputInterface: 2, gateway: "fe80::1")),
        (name: "next hop linkdown", link: eth0, address: eth0Address, route: F.route(outputInterface: 2, gateway: "192.0.2.1", flags: 0x10)),
        (name: "unreachable route", link: eth0, address: eth0Address, route: F.route(type: 7, outputInterface: 2)),
        (name: "not a default route", link: eth0, address: eth0Address, route: F.route(destination: "198.51.100.0", destinationLength: 24, outputInterface: 2)),
    ])
    func aDefaultRouteMustBeUsable(name: String, link: [UInt8], address: [UInt8], route: [UInt8]) {
        var machine = Self.machine()
        let actions = Self.dump(&machine, links: [Self.loopback, link], addresses: [address], routes: [route])
        #expect(actions == [.report(.notReachable)], "\(name)")
    }

    @Test func theLowestMetricWinsAndNamesTheKind() {
        var machine = Self.machine()
        let wifi = F.link(index: 3, flags: Self.up, name: "wlan0")
        let actions = Self.dump(
            &machine, links: [Self.eth0, wifi],
            addresses: [Self.eth0Address, F.address("2001:db8::5", prefix: 64, index: 3)],
            routes: [
                F.route(outputInterface: 2, gateway: "192.0.2.1", priority: 600),
                F.route(family: .ipv6, outputInterface: 3, gateway: "2001:db8::1", priority: 100),
            ])
        #expect(actions == [.report(.reachable(via: .wifi, interface: "wlan0"))])
    }

    @Test func aBurstOfChangesIsEvaluatedOnceAfterThePause() {
        var machine = Self.machine()
        _ = Self.dump(&machine, links: [Self.eth0], addresses: [Self.eth0Address])
        // Another process (port 777) adds the route; the kernel repeats it in a burst.
        var actions = Self.feed(&machine, F.route(outputInterface: 2, gateway: "192.0.2.1", portID: 777))
        actions += Self.feed(&machine, F.route(destination: "198.51.100.0", destinationLength: 24, outputInterface: 2, portID: 777))
        actions += Self.feed(&machine, F.address("2001:db8::2", prefix: 64, index: 2))
        #expect(actions == [.scheduleEvaluation])
        #expect(machine.evaluationDue() == [.report(Self.ethernet0)])
        // Same status again: nothing to report.
        #expect(Self.feed(&machine, F.address("2001:db8::3", prefix: 64, index: 2)) == [.scheduleEvaluation])
        #expect(machine.evaluationDue() == [])
        // An unrelated repeat of known state changes nothing at all.
        #expect(Self.feed(&machine, F.link(index: 2, flags: Self.up, name: nil)) == [])
    }

    @Test func routeRemovalAndReturnAreReported() {
        var machine = Self.machine()
        _ = Self.dump(&machine, links: [Self.eth0], addresses: [Self.eth0Address], routes: [Self.defaultRoute])
        #expect(Self.feed(&machine, F.route(outputInterface: 2, gateway: "192.0.2.1", deleted: true)) == [.scheduleEvaluation])
        #expect(machine.evaluationDue() == [.report(.notReachable)])
        #expect(Self.feed(&machine, Self.defaultRoute) == [.scheduleEvaluation])
        #expect(machine.evaluationDue() == [.report(Self.ethernet0)])
    }

    /// The kernel flushes IPv4 routes silently when a link goes down: the machine dumps again
    /// instead of trusting its copy, and reports once the fresh dump is read.
    @Test func aLinkGoingDownStartsAFreshDump() {
        var machine = Self.machine()
        _ = Self.dump(&machine, links: [Self.eth0], addresses: [Self.eth0Address], routes: [Self.defaultRoute])
        #expect(Self.feed(&machine, F.link(index: 2, flags: 0x1002, name: "eth0")) == [.send(.dumpLinks, sequence: 4)])
        // While dumping, notifications are applied but nothing is evaluated.
        #expect(Self.feed(&machine, F.route(outputInterface: 2, gateway: "192.0.2.1", deleted: true)) == [])
        #expect(machine.evaluationDue() == [])
        let down = F.link(index: 2, flags: 0x1002, name: "eth0")
        let actions = Self.dump(&machine, firstSequence: 4, links: [down], addresses: [Self.eth0Address], start: false)
        #expect(actions == [.report(.notReachable)])
    }

    @Test func anIPv4AddressRemovalStartsAFreshDumpAndIPv6DoesNot() {
        var machine = Self.machine()
        let v6 = F.address("2001:db8::2", prefix: 64, index: 2)
        _ = Self.dump(&machine, links: [Self.eth0], addresses: [Self.eth0Address, v6], routes: [Self.defaultRoute])
        #expect(Self.feed(&machine, F.address("2001:db8::2", prefix: 64, index: 2, deleted: true)) == [.scheduleEvaluation])
        #expect(Self.feed(&machine, F.address("192.0.2.2", prefix: 24, index: 2, deleted: true)) == [.send(.dumpLinks, sequence: 4)])
    }

    @Test func lostMessagesStartAFreshDumpAndOldRepliesAreIgnored() {
        var machine = Self.machine()
        _ = Self.dump(&machine, links: [Self.eth0], addresses: [Self.eth0Address], routes: [Self.defaultRoute])
        #expect(machine.messagesLost() == [.send(.dumpLinks, sequence: 4)])
        #expect(machine.routeTable.links.isEmpty, "the table is rebuilt from nothing")
        // A late reply to an abandoned request is not the current one: ignored.
        #expect(Self.feed(&machine, F.done(sequence: 3)) == [])
        let actions = Self.dump(&machine, firstSequence: 4, links: [Self.eth0], addresses: [Self.eth0Address], start: false)
        #expect(actions == [.report(.notReachable)])
    }

    /// The kernel runs one dump per socket: a loss during a dump lets it finish, then dumps
    /// again from the start, rather than asking for a second dump the kernel would refuse.
    @Test func aLossDuringADumpDumpsAgainAfterIt() {
        var machine = Self.machine()
        #expect(machine.start() == [.send(.dumpLinks, sequence: 1)])
        _ = Self.feed(&machine, Self.stamp(Self.eth0, sequence: 1))
        #expect(machine.messagesLost() == [])
        #expect(Self.feed(&machine, F.message(type: 4, body: [])) == [], "NLMSG_OVERRUN is a loss too")
        let actions = Self.dump(&machine, links: [Self.eth0], addresses: [Self.eth0Address], routes: [Self.defaultRoute], start: false)
        #expect(actions == [.send(.dumpLinks, sequence: 4)], "no status from a dump that missed messages")
        let again = Self.dump(&machine, firstSequence: 4, links: [Self.eth0], addresses: [Self.eth0Address], routes: [Self.defaultRoute], start: false)
        #expect(again == [.report(Self.ethernet0)])
    }

    @Test func anInterruptedDumpIsDoneAgain() {
        var machine = Self.machine()
        _ = machine.start()
        #expect(Self.feed(&machine, F.done(sequence: 1, flags: 0x12)) == [.send(.dumpAddresses, sequence: 2)])
        #expect(Self.feed(&machine, F.done(sequence: 2)) == [.send(.dumpRoutes, sequence: 3)])
        #expect(Self.feed(&machine, F.done(sequence: 3)) == [.send(.dumpLinks, sequence: 4)])
    }

    @Test func aRefusedDumpFails() {
        var machine = Self.machine()
        _ = machine.start()
        #expect(Self.feed(&machine, F.error(1, sequence: 1)) == [.fail(reason: "the kernel refused the links dump (errno 1)")])
    }

    // MARK: - Destinations

    @Test func anAddressIsAnsweredByTheKernelsLookupAfterEveryChange() throws {
        let destination = try #require(IPAddress("198.51.100.7"))
        var machine = Self.machine(.address(destination))
        let actions = Self.dump(&machine, links: [Self.eth0], addresses: [Self.eth0Address])
        #expect(actions == [.send(.lookup(destination), sequence: 4)])
        #expect(Self.feed(&machine, F.error(101, sequence: 4)) == [.report(.notReachable)])  // ENETUNREACH
        #expect(Self.feed(&machine, Self.defaultRoute) == [.scheduleEvaluation])
        #expect(machine.evaluationDue() == [.send(.lookup(destination), sequence: 5)])
        // A change while the lookup is out asks again once it is answered.
        #expect(Self.feed(&machine, F.address("192.0.2.3", prefix: 24, index: 2)) == [.scheduleEvaluation])
        #expect(machine.evaluationDue() == [])
        let reply = Self.stamp(F.route(destination: "198.51.100.7", destinationLength: 32, outputInterface: 2, gateway: "192.0.2.1"), sequence: 5)
        #expect(Self.feed(&machine, reply) == [.report(Self.ethernet0), .send(.lookup(destination), sequence: 6)])
    }

    @Test func aHostIsResolvedThenEachAddressLookedUpInOrder() throws {
        let first = try #require(IPAddress("2001:db8::9")), second = try #require(IPAddress("192.0.2.9"))
        var machine = Self.machine(.host("example.test"))
        let actions = Self.dump(&machine, links: [Self.eth0], addresses: [Self.eth0Address])
        #expect(actions == [.resolve("example.test")])
        #expect(machine.resolved(.addresses([first, second])) == [.send(.lookup(first), sequence: 4)])
        #expect(Self.feed(&machine, F.error(101, sequence: 4)) == [.send(.lookup(second), sequence: 5)])
        let reply = Self.stamp(F.route(destination: "192.0.2.9", destinationLength: 32, outputInterface: 2), sequence: 5)
        #expect(Self.feed(&machine, reply) == [.report(Self.ethernet0)])
        // A change looks up the known addresses at once and resolves again.
        _ = Self.feed(&machine, Self.defaultRoute)
        #expect(machine.evaluationDue() == [.resolve("example.test"), .send(.lookup(first), sequence: 6)])
        // The name is gone: not reachable, whatever the lookup in flight says.
        #expect(machine.resolved(.notFound) == [.report(.notReachable)])
    }

    @Test func aChangeWhileResolvingResolvesAgainAndATemporaryFailureKeepsTheAddresses() throws {
        let address = try #require(IPAddress("192.0.2.9"))
        var machine = Self.machine(.host("example.test"))
        _ = Self.dump(&machine, links: [Self.eth0], addresses: [Self.eth0Address])
        _ = Self.feed(&machine, Self.defaultRoute)
        #expect(machine.evaluationDue() == [])  // already resolving: asked again afterwards
        #expect(machine.resolved(.addresses([address])) == [.resolve("example.test"), .send(.lookup(address), sequence: 4)])
        let reply = Self.stamp(F.route(destination: "192.0.2.9", destinationLength: 32, outputInterface: 2), sequence: 4)
        #expect(Self.feed(&machine, reply) == [.report(Self.ethernet0)])
        #expect(machine.resolved(.failed) == [.send(.lookup(address), sequence: 5)])
    }

    @Test func aNameThatNeverResolvedIsNotReachable() {
        var machine = Self.machine(.host("nowhere.invalid"))
        _ = Self.dump(&machine, links: [Self.eth0], addresses: [Self.eth0Address])
        #expect(machine.resolved(.failed) == [.report(.notReachable)])
    }
}
