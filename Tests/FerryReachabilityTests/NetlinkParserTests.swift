@testable import FerryReachability
import Testing

/// The parser over byte fixtures: well-formed messages read as the kernel means them, and
/// malformed ones (short, lying, misaligned) skipped with a problem, never a crash.
struct NetlinkParserTests {
    typealias F = NetlinkFixture

    @Test func readsALinkWithItsNameAndFlags() throws {
        let message = try #require(F.parsedOne(F.link(index: 3, hardwareType: 1, flags: 0x1_0043, name: "eth0", sequence: 7, portID: 9)))
        #expect(message.header == NetlinkMessage.Header(length: 44, type: 16, flags: 0, sequence: 7, portID: 9))
        #expect(message.body == .link(LinkInfo(index: 3, hardwareType: 1, flags: 0x1_0043, name: "eth0"), deleted: false))
        guard case .link(let link, _) = message.body else { return }
        #expect(link.isUp && !link.isLoopback)
    }

    @Test func readsDeletionsAndALinkWithoutAName() throws {
        let message = try #require(F.parsedOne(F.link(index: 5, flags: 0, name: nil, deleted: true)))
        #expect(message.body == .link(LinkInfo(index: 5, hardwareType: 1, flags: 0, name: nil), deleted: true))
    }

    @Test func prefersTheLocalAddressAndReadsExtendedFlags() throws {
        // Point-to-point links put the peer in IFA_ADDRESS and the own address in IFA_LOCAL.
        var body: [UInt8] = [2, 32, 0, 0, 4, 0, 0, 0]
        body += F.attribute(1, [198, 51, 100, 1])
        body += F.attribute(2, [192, 0, 2, 9])
        body += F.attribute(8, F.bytes(of: UInt32(0x40)))
        let message = try #require(F.parsedOne(F.message(type: 20, body: body)))
        let expected = AddressInfo(interfaceIndex: 4, prefixLength: 32, scope: 0, flags: 0x40, address: IPAddress("192.0.2.9")!)
        #expect(message.body == .address(expected, deleted: false))
        #expect(!expected.isUsable, "a tentative address is not usable yet")
    }

    @Test func readsIPv6AddressesAndTheirScope() throws {
        let global = try #require(F.parsedOne(F.address("2001:db8:1::2", prefix: 64, index: 2)))
        let linkLocal = try #require(F.parsedOne(F.address("fe80::1", prefix: 64, index: 2, scope: 253)))
        guard case .address(let usable, false) = global.body, case .address(let local, false) = linkLocal.body else {
            Issue.record("not addresses: \(global), \(linkLocal)")
            return
        }
        #expect(usable.address == IPAddress("2001:db8:1::2") && usable.isUsable)
        #expect(!local.isUsable, "link-local scope does not reach beyond the link")
    }

    @Test func readsARouteWithTableGatewayInterfaceAndMetric() throws {
        let bytes = F.route(table: 1000, outputInterface: 3, gateway: "192.0.2.1", priority: 100, flags: 0x10)
        let message = try #require(F.parsedOne(bytes))
        let expected = RouteInfo(
            family: .ipv4, destinationLength: 0, table: 1000, type: 1, gateway: IPAddress("192.0.2.1"), priority: 100,
            nextHops: [.init(interfaceIndex: 3, flags: 0x10)])
        #expect(message.body == .route(expected, deleted: false))
        #expect(expected.isDefaultUnicast)
        #expect(!expected.nextHops[0].isAlive, "RTNH_F_LINKDOWN")
    }

    @Test func readsMultipathNextHops() throws {
        var hops: [UInt8] = []
        for (index, flags) in [(Int32(2), UInt8(0)), (Int32(7), UInt8(1))] {
            let gateway = F.attribute(5, [192, 0, 2, UInt8(index)])
            hops += F.bytes(of: UInt16(8 + gateway.count)) + [flags, 0] + F.bytes(of: index) + gateway
        }
        var body: [UInt8] = [2, 0, 0, 0, 254, 4, 0, 1, 0, 0, 0, 0]
        body += F.attribute(9, hops)
        let message = try #require(F.parsedOne(F.message(type: 24, body: body)))
        guard case .route(let route, false) = message.body else {
            Issue.record("not a route: \(message)")
            return
        }
        #expect(route.nextHops == [.init(interfaceIndex: 2, flags: 0), .init(interfaceIndex: 7, flags: 1)])
    }

    @Test func readsSeveralMessagesDoneAndErrors() {
        let datagram = F.link(index: 1, flags: 0x49, name: "lo") + F.done(sequence: 3) + F.error(101, sequence: 4)
            + F.message(type: 1, body: [])
        let output = NetlinkParser.parse(datagram)
        #expect(output.problems.isEmpty)
        #expect(output.messages.map(\.body) == [
            .link(LinkInfo(index: 1, hardwareType: 1, flags: 0x49, name: "lo"), deleted: false),
            .done, .error(errno: 101), .ignored,
        ])
        #expect(output.messages[1].header.sequence == 3 && output.messages[1].header.portID == F.monitorPort)
    }

    @Test func ignoresOtherFamiliesAndMessageTypes() {
        // An AF_BRIDGE route (family 7) and an RTM_NEWNEIGH (28): well-formed, not ours.
        let datagram = F.message(type: 24, body: [7, 0, 0, 0, 254, 4, 0, 1, 0, 0, 0, 0])
            + F.message(type: 28, body: [UInt8](repeating: 0, count: 12))
        let output = NetlinkParser.parse(datagram)
        #expect(output.problems.isEmpty)
        #expect(output.messages.map(\.body) == [.ignored, .ignored])
    }

    @Test func keepsAttributesAlignedAfterAnOddLength() throws {
        // "wlan0\0" is 6 bytes: the attribute is 10 long and the next one starts at 12.
        var body: [UInt8] = [0, 0, 1, 0, 9, 0, 0, 0, 0x43, 0, 1, 0, 0, 0, 0, 0]
        body += F.attribute(3, Array("wlan0".utf8) + [0]) + F.attribute(16, [6])
        let message = try #require(F.parsedOne(F.message(type: 16, body: body)))
        #expect(message.body == .link(LinkInfo(index: 9, hardwareType: 1, flags: 0x1_0043, name: "wlan0"), deleted: false))
    }

    // MARK: - Malformed input

    @Test(arguments: [
        (name: "header length below 16", bytes: [8, 0, 0, 0] + [UInt8](repeating: 0, count: 12), reason: "shorter than its 16-byte header"),
        (name: "length past the datagram", bytes: [200, 0, 0, 0] + [UInt8](repeating: 0, count: 20), reason: "claims 200 bytes but only 68 remain"),
    ])
    func stopsAtALyingHeader(name: String, bytes: [UInt8], reason: String) {
        let good = F.link(index: 2, flags: 1, name: "eth0")
        let output = NetlinkParser.parse(good + bytes + good)
        #expect(output.messages.count == 1, "\(name): the message before is kept, nothing after can be located")
        #expect(output.problems.count == 1)
        #expect(output.problems.first?.offset == good.count)
        #expect(output.problems.first?.reason.contains(reason) == true, "\(name): \(output.problems)")
    }

    @Test func reportsTrailingBytesTooShortForAHeader() {
        let good = F.done(sequence: 1)
        let output = NetlinkParser.parse(good + [20, 0, 0, 0, 16, 0])
        #expect(output.messages.map(\.body) == [.done])
        #expect(output.problems == [NetlinkParser.Problem(offset: 20, reason: "6 trailing bytes, too few for a 16-byte message header")])
    }

    @Test(arguments: [
        (name: "link body too short", type: UInt16(16), body: [UInt8](repeating: 0, count: 8), reason: "needs 16"),
        (name: "address body too short", type: 20, body: [2, 24, 0], reason: "needs 8"),
        (name: "route body too short", type: 24, body: [2, 0, 0, 0], reason: "needs 12"),
        (name: "attribute shorter than its header", type: 16, body: [UInt8](repeating: 0, count: 16) + [2, 0, 3, 0], reason: "shorter than its 4-byte header"),
        (name: "attribute past the message", type: 16, body: [UInt8](repeating: 0, count: 16) + [40, 0, 3, 0, 0x65, 0, 0, 0], reason: "claims 40 bytes"),
        (name: "IPv4 address of 3 bytes", type: 20, body: [2, 24, 0, 0, 1, 0, 0, 0, 7, 0, 1, 0, 192, 0, 2, 0], reason: "does not fit its family"),
        (name: "address without an address", type: 20, body: [10, 64, 0, 0, 1, 0, 0, 0], reason: "carries no address"),
        (name: "prefix longer than the family", type: 20, body: [2, 33, 0, 0, 1, 0, 0, 0, 8, 0, 1, 0, 192, 0, 2, 1], reason: "prefix length 33"),
        (name: "destination longer than the family", type: 24, body: [10, 129, 0, 0, 254, 0, 0, 1, 0, 0, 0, 0], reason: "destination length 129"),
        (name: "RTA_OIF of 2 bytes", type: 24, body: [2, 0, 0, 0, 254, 0, 0, 1, 0, 0, 0, 0, 6, 0, 4, 0, 1, 0, 0, 0], reason: "needs 4"),
        (name: "next hop longer than RTA_MULTIPATH", type: 24, body: [2, 0, 0, 0, 254, 0, 0, 1, 0, 0, 0, 0, 12, 0, 9, 0, 64, 0, 0, 0, 1, 0, 0, 0], reason: "next hop length 64"),
        (name: "IFA_FLAGS of 1 byte", type: 20, body: [2, 24, 0, 0, 1, 0, 0, 0, 8, 0, 1, 0, 192, 0, 2, 1, 5, 0, 8, 0, 1, 0, 0, 0], reason: "IFA_FLAGS of 1 bytes"),
        (name: "positive error code", type: 2, body: [5, 0, 0, 0], reason: "not a negated errno"),
        (name: "error without a code", type: 2, body: [0, 0], reason: "needs 4"),
    ])
    func skipsAMalformedBodyAndReadsOn(name: String, type: UInt16, body: [UInt8], reason: String) {
        let good = F.done(sequence: 1)
        let output = NetlinkParser.parse(good + F.message(type: type, body: body) + good)
        #expect(output.messages.map(\.body) == [.done, .done], "\(name): the messages around it are read")
        #expect(output.problems.count == 1)
        #expect(output.problems.first?.reason.contains(reason) == true, "\(name): \(output.problems)")
    }

    /// Every prefix of a real-looking datagram, and every single-byte corruption of it, parses
    /// without a crash; a prefix never yields a message the whole datagram does not.
    @Test func survivesEveryTruncationAndEveryByteFlip() {
        let datagram = F.link(index: 2, flags: 0x1_0043, name: "eth0") + F.address("192.0.2.2", prefix: 24, index: 2)
            + F.address("2001:db8::2", prefix: 64, index: 2, flags: 0x80)
            + F.route(outputInterface: 2, gateway: "192.0.2.1", priority: 100) + F.done(sequence: 9)
        let whole = NetlinkParser.parse(datagram)
        #expect(whole.problems.isEmpty && whole.messages.count == 5)
        for cut in 0...datagram.count {
            let output = NetlinkParser.parse(Array(datagram.prefix(cut)))
            #expect(output.messages == Array(whole.messages.prefix(output.messages.count)), "cut at \(cut)")
        }
        for offset in datagram.indices {
            for value: UInt8 in [0, 1, 3, 0x7F, 0xFF] {
                var corrupted = datagram
                corrupted[offset] = value
                _ = NetlinkParser.parse(corrupted)
            }
        }
    }
}
