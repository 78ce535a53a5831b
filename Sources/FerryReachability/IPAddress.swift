#if canImport(Glibc)
import Glibc
#endif
import FerryIO

/// An IPv4 or IPv6 address as the kernel's netlink messages carry it: the family and the
/// address bytes in network order (4 or 16 of them).
package struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    package enum Family: Sendable, Hashable {
        /// IPv4: 4 bytes.
        case ipv4
        /// IPv6: 16 bytes.
        case ipv6

        /// The `AF_*` number netlink uses in `rtm_family` and `ifa_family`.
        package var netlinkFamily: UInt8 {
            switch self {
            case .ipv4: Netlink.familyIPv4
            case .ipv6: Netlink.familyIPv6
            }
        }

        /// The address length in bytes, which is also the host-route prefix length in bytes.
        package var byteCount: Int {
            switch self {
            case .ipv4: 4
            case .ipv6: 16
            }
        }
    }

    /// The family.
    package let family: Family
    /// The address bytes, network order; exactly ``Family/byteCount`` of them.
    package let bytes: [UInt8]

    /// Wraps `bytes` when their count fits `family`; nil otherwise (a lying attribute length).
    package init?(family: Family, bytes: some Collection<UInt8>) {
        guard bytes.count == family.byteCount else { return nil }
        self.family = family
        self.bytes = Array(bytes)
    }

    /// The family for a netlink `AF_*` number, nil for anything but IPv4 and IPv6.
    package static func family(netlink value: UInt8) -> Family? {
        switch value {
        case Netlink.familyIPv4: .ipv4
        case Netlink.familyIPv6: .ipv6
        default: nil
        }
    }

    /// Parses numeric text: `192.0.2.7`, `2001:db8::7` (brackets allowed). Names are refused
    /// (nil): a destination manager is given an address, not a name.
    package init?(_ text: String) {
        guard let address = SocketAddress(ipAddress: text, port: 0) else { return nil }
        self.init(address)
    }

    /// The address part of a resolved socket address (the port and IPv6 scope are dropped:
    /// a route lookup asks about the address alone).
    package init(_ address: SocketAddress) {
        let (family, bytes) = address.withSockAddr { pointer, _ -> (Family, [UInt8]) in
            let raw = UnsafeRawPointer(pointer)
            if Int32(pointer.pointee.sa_family) == AF_INET {
                let inet = raw.loadUnaligned(as: sockaddr_in.self)
                return (.ipv4, withUnsafeBytes(of: inet.sin_addr) { Array($0) })
            }
            let inet6 = raw.loadUnaligned(as: sockaddr_in6.self)
            return (.ipv6, withUnsafeBytes(of: inet6.sin6_addr) { Array($0) })
        }
        self.family = family
        self.bytes = bytes
    }

    /// The conventional text form (`inet_ntop`).
    package var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = self.family == .ipv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard written else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
