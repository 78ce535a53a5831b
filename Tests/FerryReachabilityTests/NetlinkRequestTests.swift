@testable import FerryReachability
import Testing

/// The exact bytes of each request the monitor sends.
struct NetlinkRequestTests {
    private func header(length: UInt32, type: UInt16, flags: UInt16, sequence: UInt32) -> [UInt8] {
        NetlinkFixture.bytes(of: length) + NetlinkFixture.bytes(of: type) + NetlinkFixture.bytes(of: flags)
            + NetlinkFixture.bytes(of: sequence) + [0, 0, 0, 0]
    }

    @Test func dumpsAskForEverythingOfAllFamilies() {
        #expect(NetlinkRequest.dumpLinks.encoded(sequence: 1) == header(length: 32, type: 18, flags: 0x301, sequence: 1) + [UInt8](repeating: 0, count: 16))
        #expect(NetlinkRequest.dumpAddresses.encoded(sequence: 2) == header(length: 24, type: 22, flags: 0x301, sequence: 2) + [UInt8](repeating: 0, count: 8))
        #expect(NetlinkRequest.dumpRoutes.encoded(sequence: 3) == header(length: 28, type: 26, flags: 0x301, sequence: 3) + [UInt8](repeating: 0, count: 12))
    }

    @Test func anIPv4LookupCarriesAHostRouteDestination() throws {
        let address = try #require(IPAddress("192.0.2.55"))
        let rtmsg: [UInt8] = [2, 32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let destination: [UInt8] = [8, 0, 1, 0, 192, 0, 2, 55]
        #expect(NetlinkRequest.lookup(address).encoded(sequence: 7) == header(length: 36, type: 26, flags: 0x1, sequence: 7) + rtmsg + destination)
    }

    @Test func anIPv6LookupCarriesSixteenBytes() throws {
        let address = try #require(IPAddress("[2001:db8::7]"))
        let bytes = NetlinkRequest.lookup(address).encoded(sequence: 8)
        #expect(bytes.count == 16 + 12 + 20)
        #expect(Array(bytes[16..<18]) == [10, 128])
        #expect(Array(bytes[28..<32]) == [20, 0, 1, 0])
        #expect(Array(bytes[32...]) == [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [7])
        #expect(address.description == "2001:db8::7")
    }

    @Test func namesAreNotAddresses() {
        #expect(IPAddress("example.com") == nil)
        #expect(IPAddress("192.0.2") == nil)
        #expect(IPAddress("192.0.2.1")?.description == "192.0.2.1")
    }
}
