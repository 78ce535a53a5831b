/// A request a monitor sends to the kernel, and its exact bytes. Pure.
///
/// Dumps ask for every link, address or route (`NLM_F_DUMP`) and are answered by a run of
/// messages ending in `NLMSG_DONE`. A lookup asks the kernel which route it would use for one
/// destination (`RTM_GETROUTE` with `RTA_DST`, no dump flag), answered by a single
/// `RTM_NEWROUTE` or by `NLMSG_ERROR` (`ENETUNREACH`, `EHOSTUNREACH`, …).
package enum NetlinkRequest: Sendable, Hashable {
    /// `RTM_GETLINK` dump.
    case dumpLinks
    /// `RTM_GETADDR` dump, all families.
    case dumpAddresses
    /// `RTM_GETROUTE` dump, all families.
    case dumpRoutes
    /// `RTM_GETROUTE` for one address: the kernel's own route decision.
    case lookup(IPAddress)

    /// The request's bytes with sequence number `sequence` (`nlmsg_pid` 0: the kernel fills
    /// in the sender's port).
    package func encoded(sequence: UInt32) -> [UInt8] {
        var body: [UInt8]
        let type: UInt16
        var flags = Netlink.flagRequest
        switch self {
        case .dumpLinks:
            type = Netlink.getLink
            flags |= Netlink.flagDump
            body = [UInt8](repeating: 0, count: Netlink.ifinfomsgSize)  // ifi_family AF_UNSPEC
        case .dumpAddresses:
            type = Netlink.getAddress
            flags |= Netlink.flagDump
            body = [UInt8](repeating: 0, count: Netlink.ifaddrmsgSize)
        case .dumpRoutes:
            type = Netlink.getRoute
            flags |= Netlink.flagDump
            body = [UInt8](repeating: 0, count: Netlink.rtmsgSize)
        case .lookup(let address):
            type = Netlink.getRoute
            body = [UInt8](repeating: 0, count: Netlink.rtmsgSize)
            body[0] = address.family.netlinkFamily
            body[1] = UInt8(address.family.byteCount * 8)  // rtm_dst_len: a host route
            Self.appendAttribute(Netlink.routeDestination, address.bytes, to: &body)
        }
        var message: [UInt8] = []
        message.reserveCapacity(Netlink.headerSize + body.count)
        Self.append(UInt32(Netlink.headerSize + body.count), to: &message)
        Self.append(type, to: &message)
        Self.append(flags, to: &message)
        Self.append(sequence, to: &message)
        Self.append(UInt32(0), to: &message)
        message += body
        return message
    }

    /// A short name for logs: `links dump`, `route lookup for 192.0.2.7`.
    package var name: String {
        switch self {
        case .dumpLinks: "links dump"
        case .dumpAddresses: "addresses dump"
        case .dumpRoutes: "routes dump"
        case .lookup(let address): "route lookup for \(address)"
        }
    }

    private static func appendAttribute(_ type: UInt16, _ payload: [UInt8], to bytes: inout [UInt8]) {
        append(UInt16(4 + payload.count), to: &bytes)
        append(type, to: &bytes)
        bytes += payload
        let padding = NetlinkParser.align(payload.count) - payload.count
        bytes += [UInt8](repeating: 0, count: padding)
    }

    /// Appends `value` in host byte order (netlink's).
    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { bytes += $0 }
    }
}
