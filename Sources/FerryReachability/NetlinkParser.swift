/// Reads rtnetlink datagrams into ``NetlinkMessage`` values. Pure: no I/O, no state.
///
/// Every offset is checked before it is read, because the lengths inside a datagram are data,
/// not promises: a message or attribute whose length is too short for its header, runs past
/// what holds it, or does not fit its type is skipped and reported as a ``Problem`` (the owner
/// logs it), never trusted. When a message header lies, nothing after it in the datagram can
/// be located, so parsing of that datagram stops there; a message whose own body or
/// attributes are malformed is skipped and the next one is read. Numbers are in host byte
/// order (netlink's), addresses in network order. Layouts: linux/netlink.h, linux/rtnetlink.h.
package enum NetlinkParser {
    /// Something in a datagram that was skipped, with where and why.
    package struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// Byte offset of the message (from the start of the datagram).
        package var offset: Int
        /// What was wrong, in words.
        package var reason: String

        /// Creates a problem record.
        package init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }

        /// `offset N: reason`.
        package var description: String { "offset \(offset): \(reason)" }
    }

    /// The messages read from one datagram, and what was skipped.
    package struct Output: Sendable, Hashable {
        /// The well-formed messages, in order.
        package var messages: [NetlinkMessage] = []
        /// What was skipped, in order.
        package var problems: [Problem] = []
    }

    /// Parses one datagram.
    /// - Parameter bytes: What one `recv` returned.
    package static func parse(_ bytes: [UInt8]) -> Output {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Parses one datagram.
    /// - Parameter bytes: What one `recv` returned.
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> Output {
        var result = Output()
        var offset = 0
        while offset < bytes.count {
            let remaining = bytes.count - offset
            guard remaining >= Netlink.headerSize else {
                result.problems.append(Problem(offset: offset, reason: "\(remaining) trailing bytes, too few for a 16-byte message header"))
                break
            }
            let reader = ByteReader(bytes: bytes)
            let length = Int(reader.u32(offset))
            guard length >= Netlink.headerSize else {
                result.problems.append(Problem(offset: offset, reason: "message length \(length) is shorter than its 16-byte header"))
                break
            }
            guard length <= remaining else {
                result.problems.append(Problem(offset: offset, reason: "message claims \(length) bytes but only \(remaining) remain"))
                break
            }
            let header = NetlinkMessage.Header(
                length: UInt32(length), type: reader.u16(offset + 4), flags: reader.u16(offset + 6),
                sequence: reader.u32(offset + 8), portID: reader.u32(offset + 12))
            let body = ByteReader(bytes: UnsafeRawBufferPointer(rebasing: bytes[(offset + Netlink.headerSize)..<(offset + length)]))
            do throws(Failure) {
                let parsed = try parseBody(type: header.type, body)
                result.messages.append(NetlinkMessage(header: header, body: parsed))
            } catch {
                result.problems.append(Problem(offset: offset, reason: "message type \(header.type): \(error.reason)"))
            }
            offset += align(length)
        }
        return result
    }

    /// `NLMSG_ALIGN`/`RTA_ALIGN`: rounds up to a multiple of 4.
    static func align(_ length: Int) -> Int {
        (length + Netlink.alignment - 1) & ~(Netlink.alignment - 1)
    }

    /// Why a message body was skipped.
    struct Failure: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    // MARK: - Bodies

    private static func parseBody(type: UInt16, _ body: ByteReader) throws(Failure) -> NetlinkMessage.Body {
        switch type {
        case Netlink.done: .done
        case Netlink.overrun: .overrun
        case Netlink.error: try parseError(body)
        case Netlink.newLink, Netlink.deleteLink: try parseLink(body, deleted: type == Netlink.deleteLink)
        case Netlink.newAddress, Netlink.deleteAddress: try parseAddress(body, deleted: type == Netlink.deleteAddress)
        case Netlink.newRoute, Netlink.deleteRoute: try parseRoute(body, deleted: type == Netlink.deleteRoute)
        default: .ignored
        }
    }

    private static func parseError(_ body: ByteReader) throws(Failure) -> NetlinkMessage.Body {
        // struct nlmsgerr: a negative errno (0 for an acknowledgement), then the request's header.
        guard body.count >= 4 else { throw Failure("error message of \(body.count) bytes, needs 4 for the code") }
        let code = Int32(bitPattern: body.u32(0))
        guard code <= 0, code != .min else { throw Failure("error code \(code) is not a negated errno") }
        return .error(errno: -code)
    }

    private static func parseLink(_ body: ByteReader, deleted: Bool) throws(Failure) -> NetlinkMessage.Body {
        guard body.count >= Netlink.ifinfomsgSize else {
            throw Failure("link message body of \(body.count) bytes, needs \(Netlink.ifinfomsgSize)")
        }
        var link = LinkInfo(index: Int32(bitPattern: body.u32(4)), hardwareType: body.u16(2), flags: body.u32(8), name: nil)
        let attributes = try body.attributes(from: Netlink.ifinfomsgSize)
        for attribute in attributes where attribute.type == Netlink.linkName {
            let payload = body.slice(attribute.payload)
            link.name = String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self)
        }
        return .link(link, deleted: deleted)
    }

    /// The family and prefix length that `struct ifaddrmsg` and `struct rtmsg` both start
    /// with, after checking the fixed part is there; nil for a family other than IPv4 and IPv6.
    private static func familyAndPrefix(
        _ body: ByteReader, size: Int, of kind: String, prefix: String
    ) throws(Failure) -> (IPAddress.Family, UInt8)? {
        guard body.count >= size else { throw Failure("\(kind) message body of \(body.count) bytes, needs \(size)") }
        guard let family = IPAddress.family(netlink: body.u8(0)) else { return nil }
        let length = body.u8(1)
        guard Int(length) <= family.byteCount * 8 else {
            throw Failure("\(prefix) length \(length) is too long for the address family")
        }
        return (family, length)
    }

    private static func parseAddress(_ body: ByteReader, deleted: Bool) throws(Failure) -> NetlinkMessage.Body {
        guard let (family, prefixLength) = try familyAndPrefix(body, size: Netlink.ifaddrmsgSize, of: "address", prefix: "prefix") else {
            return .ignored
        }
        var flags = UInt32(body.u8(2))
        var local: IPAddress?
        var address: IPAddress?
        let attributes = try body.attributes(from: Netlink.ifaddrmsgSize)
        for attribute in attributes {
            switch attribute.type {
            case Netlink.addressAddress, Netlink.addressLocal:
                guard let value = IPAddress(family: family, bytes: body.slice(attribute.payload)) else {
                    throw Failure("address attribute of \(attribute.payload.count) bytes does not fit its family")
                }
                if attribute.type == Netlink.addressLocal { local = value } else { address = value }
            case Netlink.addressFlags:
                guard attribute.payload.count >= 4 else { throw Failure("IFA_FLAGS of \(attribute.payload.count) bytes, needs 4") }
                flags = body.u32(attribute.payload.lowerBound)
            default:
                continue
            }
        }
        guard let chosen = local ?? address else { throw Failure("address message carries no address") }
        let info = AddressInfo(
            interfaceIndex: Int32(bitPattern: body.u32(4)), prefixLength: prefixLength, scope: body.u8(3),
            flags: flags, address: chosen)
        return .address(info, deleted: deleted)
    }

    private static func parseRoute(_ body: ByteReader, deleted: Bool) throws(Failure) -> NetlinkMessage.Body {
        guard let (family, destinationLength) = try familyAndPrefix(body, size: Netlink.rtmsgSize, of: "route", prefix: "destination") else {
            return .ignored
        }
        var route = RouteInfo(
            family: family, destinationLength: destinationLength, table: UInt32(body.u8(4)), type: body.u8(7), nextHops: [])
        let routeFlags = body.u32(8)
        var outputInterface: Int32?
        var multipath: [RouteInfo.NextHop]?
        let attributes = try body.attributes(from: Netlink.rtmsgSize)
        for attribute in attributes {
            let payload = attribute.payload
            switch attribute.type {
            case Netlink.routeDestination, Netlink.routeGateway:
                guard let value = IPAddress(family: family, bytes: body.slice(payload)) else {
                    throw Failure("route address attribute of \(payload.count) bytes does not fit its family")
                }
                if attribute.type == Netlink.routeDestination { route.destination = value } else { route.gateway = value }
            case Netlink.routeOutput, Netlink.routePriority, Netlink.routeTable:
                guard payload.count >= 4 else {
                    throw Failure("route attribute \(attribute.type) of \(payload.count) bytes, needs 4")
                }
                let value = body.u32(payload.lowerBound)
                switch attribute.type {
                case Netlink.routeOutput: outputInterface = Int32(bitPattern: value)
                case Netlink.routePriority: route.priority = value
                default: route.table = value
                }
            case Netlink.routeMultipath:
                multipath = try parseNextHops(body, payload)
            default:
                continue
            }
        }
        if let multipath {
            route.nextHops = multipath
        } else if let outputInterface {
            route.nextHops = [RouteInfo.NextHop(interfaceIndex: outputInterface, flags: routeFlags)]
        }
        return .route(route, deleted: deleted)
    }

    /// `RTA_MULTIPATH`: a run of `struct rtnexthop`, each followed by its own attributes.
    private static func parseNextHops(_ body: ByteReader, _ range: Range<Int>) throws(Failure) -> [RouteInfo.NextHop] {
        var hops: [RouteInfo.NextHop] = []
        var offset = range.lowerBound
        while range.upperBound - offset >= Netlink.rtnexthopSize {
            let length = Int(body.u16(offset))
            guard length >= Netlink.rtnexthopSize, length <= range.upperBound - offset else {
                throw Failure("next hop length \(length) does not fit the \(range.upperBound - offset) bytes left")
            }
            hops.append(RouteInfo.NextHop(interfaceIndex: Int32(bitPattern: body.u32(offset + 4)), flags: UInt32(body.u8(offset + 2))))
            offset += align(length)
        }
        return hops
    }
}

/// One `struct rtattr`/`struct nlattr`: its type (flags masked off) and where its payload is.
struct Attribute {
    var type: UInt16
    var payload: Range<Int>
}

/// Bounds-checked little reads over one message body. Callers check lengths before reading;
/// the preconditions here only catch a parser bug, never peer input.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count }

    func u8(_ offset: Int) -> UInt8 { bytes[offset] }

    func u16(_ offset: Int) -> UInt16 {
        precondition(offset >= 0 && offset + 2 <= bytes.count)
        return bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
    }

    func u32(_ offset: Int) -> UInt32 {
        precondition(offset >= 0 && offset + 4 <= bytes.count)
        return bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    }

    func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer.SubSequence { bytes[range] }

    /// The attributes from `start` to the end. A length shorter than the 4-byte attribute
    /// header or longer than what is left fails the whole message: nothing after it can be
    /// trusted. Fewer than 4 bytes left at the end is padding.
    func attributes(from start: Int) throws(NetlinkParser.Failure) -> [Attribute] {
        var found: [Attribute] = []
        var offset = start
        while bytes.count - offset >= 4 {
            let length = Int(u16(offset))
            let type = u16(offset + 2) & Netlink.attributeTypeMask
            guard length >= 4 else {
                throw NetlinkParser.Failure("attribute \(type) length \(length) is shorter than its 4-byte header")
            }
            guard length <= bytes.count - offset else {
                throw NetlinkParser.Failure("attribute \(type) claims \(length) bytes but only \(bytes.count - offset) remain")
            }
            found.append(Attribute(type: type, payload: (offset + 4)..<(offset + length)))
            offset += NetlinkParser.align(length)
        }
        return found
    }
}
