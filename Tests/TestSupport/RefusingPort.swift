// A loopback port that refuses connections for as long as the test holds it.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FerryBase
import Synchronization

/// A TCP port on 127.0.0.1 bound by a socket that never listens: connecting to it is refused
/// (ECONNREFUSED), and while the value is held no other socket, such as a parallel test's
/// server, can take the port.
///
/// A port that was bound and then closed (or a server's, after shutdown) is free for the
/// kernel to hand to the next server a parallel test starts, and the "refused" request then
/// reaches that server instead. Keep the value alive until the test ends: `defer { refusing.close() }`.
public final class RefusingPort: Sendable {
    /// The port nobody listens on.
    public let port: Int
    private let fd: Locked<Int32>

    /// Binds a fresh socket to 127.0.0.1 on a port the kernel picks.
    /// - Throws: ``TestServerError`` when the socket cannot be bound.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestServerError.system("socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { let code = errno; Glibc.close(fd); throw TestServerError.system("bind", errno: code) }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { let code = errno; Glibc.close(fd); throw TestServerError.system("getsockname", errno: code) }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.fd = Locked(fd)
    }

    deinit {
        close()
    }

    /// `http://127.0.0.1:PORT` followed by `pathAndQuery` (default `/`).
    public func url(_ pathAndQuery: String = "/") -> String {
        "http://127.0.0.1:\(port)\(pathAndQuery)"
    }

    /// Releases the port. Safe to call more than once.
    public func close() {
        let fd = self.fd.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { Glibc.close(fd) }
    }
}
