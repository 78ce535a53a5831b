@testable import FerryReachability

/// Builds rtnetlink messages byte by byte, in host byte order as the kernel writes them, for
/// the parser and state-machine tests. Layouts as linux/netlink.h and linux/rtnetlink.h.
enum NetlinkFixture {
    static let monitorPort: UInt32 = 4242

    /// A whole message: header, body, and padding to 4 bytes.
    static func message(
        type: UInt16, flags: UInt16 = 0, sequence: UInt32 = 0, portID: UInt32 = 0, body: [UInt8]
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        append(UInt32(16 + body.count), &bytes)
        append(type, &bytes)
        append(flags, &bytes)
        append(sequence, &bytes)
        append(portID, &bytes)
        bytes += body
        return padded(bytes)
    }

    /// One attribute (`struct rtattr` + payload + padding).
    static func attribute(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        append(UInt16(4 + payload.count), &bytes)
        append(type, &bytes)
        return padded(bytes + payload)
    }

    static func link(
        index: Int32, hardwareType: UInt16 = 1, flags: UInt32, name: String?, deleted: Bool = false,
        sequence: UInt32 = 0, portID: UInt32 = 0
    ) -> [UInt8] {
        var body: [UInt8] = [0, 0]  // AF_UNSPEC, pad
        append(hardwareType, &body)
        append(index, &body)
        append(flags, &body)
        append(UInt32(0xFFFF_FFFF), &body)  // ifi_change
        if let name { body += attribute(3, Array(name.utf8) + [0]) }
        return message(type: deleted ? 17 : 16, sequence: sequence, portID: portID, body: body)
    }

    static func address(
        _ text: String, prefix: UInt8, index: Int32, scope: UInt8 = 0, flags: UInt32? = nil,
        deleted: Bool = false, sequence: UInt32 = 0, portID: UInt32 = 0
    ) -> [UInt8] {
        let address = IPAddress(text)!
        var body: [UInt8] = [address.family.netlinkFamily, prefix, 0, scope]
        append(UInt32(bitPattern: index), &body)
        body += attribute(1, address.bytes)
        if address.family == .ipv4 { body += attribute(2, address.bytes) }
        if let flags { body += attribute(8, withUnsafeBytes(of: flags) { Array($0) }) }
        return message(type: deleted ? 21 : 20, sequence: sequence, portID: portID, body: body)
    }

    static func route(
        family: IPAddress.Family = .ipv4, destination: String? = nil, destinationLength: UInt8 = 0,
        table: UInt32 = 254, type: UInt8 = 1, outputInterface: Int32?, gateway: String? = nil, priority: UInt32? = nil,
        flags: UInt32 = 0, deleted: Bool = false, sequence: UInt32 = 0, portID: UInt32 = 0
    ) -> [UInt8] {
        var body: [UInt8] = [family.netlinkFamily, destinationLength, 0, 0, UInt8(truncatingIfNeeded: table), 4, 0, type]
        append(flags, &body)
        body += attribute(15, bytes(of: table))
        if let destination { body += attribute(1, IPAddress(destination)!.bytes) }
        if let outputInterface { body += attribute(4, bytes(of: outputInterface)) }
        if let gateway { body += attribute(5, IPAddress(gateway)!.bytes) }
        if let priority { body += attribute(6, bytes(of: priority)) }
        return message(type: deleted ? 25 : 24, sequence: sequence, portID: portID, body: body)
    }

    static func done(sequence: UInt32, portID: UInt32 = monitorPort, flags: UInt16 = 2) -> [UInt8] {
        message(type: 3, flags: flags, sequence: sequence, portID: portID, body: [0, 0, 0, 0])
    }

    static func error(_ errno: Int32, sequence: UInt32, portID: UInt32 = monitorPort) -> [UInt8] {
        message(type: 2, sequence: sequence, portID: portID, body: bytes(of: -errno) + [UInt8](repeating: 0, count: 16))
    }

    static func bytes<T: FixedWidthInteger>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, _ bytes: inout [UInt8]) {
        bytes += self.bytes(of: value)
    }

    private static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
    }

    /// The one message a fixture holds, parsed (nil when it did not parse cleanly).
    static func parsedOne(_ bytes: [UInt8]) -> NetlinkMessage? {
        let output = NetlinkParser.parse(bytes)
        guard output.problems.isEmpty, output.messages.count == 1 else { return nil }
        return output.messages[0]
    }
}
