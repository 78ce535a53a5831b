import FerryBase
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address and TCP port.
///
/// Stored as plain values (not a `sockaddr`) so it is `Hashable` and `Sendable`; the C form is
/// built on demand in ``withSockAddr(_:)``.
package struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    package enum Family: Sendable, Hashable {
        /// IPv4 (`AF_INET`).
        case inet
        /// IPv6 (`AF_INET6`).
        case inet6

        /// The C `AF_*` value.
        package var rawValue: Int32 {
            switch self {
            case .inet: AF_INET
            case .inet6: AF_INET6
            }
        }
    }

    private enum Address: Hashable {
        /// `s_addr`, in network byte order as the kernel keeps it.
        case v4(UInt32)
        /// `sin6_addr` bytes (as two words in memory order), plus flow info and scope id.
        case v6(UInt64, UInt64, flowInfo: UInt32, scopeID: UInt32)
    }

    private let address: Address
    /// The port, in host byte order.
    package let port: UInt16

    /// The address family.
    package var family: Family {
        switch address {
        case .v4: .inet
        case .v6: .inet6
        }
    }

    /// Reads an `AF_INET`/`AF_INET6` address; nil for any other family (for example `AF_UNIX`).
    package init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let inet = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            address = .v4(inet.sin_addr.s_addr)
            port = UInt16(bigEndian: inet.sin_port)
        case AF_INET6:
            let inet6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            let words = withUnsafeBytes(of: inet6.sin6_addr) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
            address = .v6(words.0, words.1, flowInfo: inet6.sin6_flowinfo, scopeID: inet6.sin6_scope_id)
            port = UInt16(bigEndian: inet6.sin6_port)
        default:
            return nil
        }
    }

    /// Reads the address `getaddrinfo`, `getsockname` or `accept` produced.
    package init?(_ pointer: UnsafePointer<sockaddr>, length: socklen_t) {
        guard Int(length) <= MemoryLayout<sockaddr_storage>.size else { return nil }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: Int(length)))
        }
        self.init(storage: storage)
    }

    /// Parses a numeric IPv4 (`127.0.0.1`) or IPv6 (`::1`, also `[::1]`) address; nil for
    /// anything else, including names. IPv6 zone suffixes (`%eth0`) are left to the resolver.
    package init?(ipAddress: String, port: UInt16) {
        let text = HostName.unbracketed(ipAddress)
        var inet = in_addr()
        if inet_pton(AF_INET, String(text), &inet) == 1 {
            address = .v4(inet.s_addr)
            self.port = port
            return
        }
        var inet6 = in6_addr()
        if inet_pton(AF_INET6, String(text), &inet6) == 1 {
            let words = withUnsafeBytes(of: inet6) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
            address = .v6(words.0, words.1, flowInfo: 0, scopeID: 0)
            self.port = port
            return
        }
        return nil
    }

    /// The address's bytes in network order: 4 for IPv4, 16 for IPv6 (for prefix matches).
    package var addressBytes: [UInt8] {
        switch address {
        case .v4(let word): withUnsafeBytes(of: word) { Array($0) }
        case .v6(let high, let low, _, _): withUnsafeBytes(of: high) { Array($0) } + withUnsafeBytes(of: low) { Array($0) }
        }
    }

    /// The same address with another port.
    package func withPort(_ port: UInt16) -> SocketAddress {
        SocketAddress(address: address, port: port)
    }

    private init(address: Address, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// Calls `body` with the C form of the address and its length.
    package func withSockAddr<R, E: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> R
    ) throws(E) -> R {
        var storage = sockaddr_storage()
        let length: Int
        switch address {
        case .v4(let bits):
            var inet = sockaddr_in()
            inet.sin_family = sa_family_t(AF_INET)
            inet.sin_port = port.bigEndian
            inet.sin_addr.s_addr = bits
            length = MemoryLayout<sockaddr_in>.size
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: inet, as: sockaddr_in.self) }
        case .v6(let high, let low, let flowInfo, let scopeID):
            var inet6 = sockaddr_in6()
            inet6.sin6_family = sa_family_t(AF_INET6)
            inet6.sin6_port = port.bigEndian
            inet6.sin6_flowinfo = flowInfo
            inet6.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &inet6.sin6_addr) {
                $0.storeBytes(of: high, as: UInt64.self)
                $0.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
            }
            length = MemoryLayout<sockaddr_in6>.size
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: inet6, as: sockaddr_in6.self) }
        }
        return try withUnsafePointer(to: &storage) { (pointer) throws(E) -> R in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(E) -> R in
                try body(address, socklen_t(length))
            }
        }
    }

    /// The address alone: `127.0.0.1` or `::1` (with `%scope` when it has a zone).
    package var ipAddress: String {
        // inet_ntop into a stack buffer: this runs for every new connection (its metrics).
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { buffer in
            let out = buffer.baseAddress!
            out.initialize(to: 0)
            switch address {
            case .v4(let bits):
                var inet = in_addr(s_addr: bits)
                _ = inet_ntop(AF_INET, &inet, out, socklen_t(buffer.count))
                return String(cString: out)
            case .v6(let high, let low, _, let scopeID):
                var inet6 = in6_addr()
                withUnsafeMutableBytes(of: &inet6) {
                    $0.storeBytes(of: high, as: UInt64.self)
                    $0.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
                }
                _ = inet_ntop(AF_INET6, &inet6, out, socklen_t(buffer.count))
                let text = String(cString: out)
                return scopeID == 0 ? text : "\(text)%\(scopeID)"
            }
        }
    }

    /// `127.0.0.1:80` or `[::1]:80`.
    package var description: String {
        switch address {
        case .v4: "\(ipAddress):\(port)"
        case .v6: "[\(ipAddress)]:\(port)"
        }
    }
}
