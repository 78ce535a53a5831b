#if canImport(Glibc)
import Glibc
#endif
import CFerryShims
import Dispatch
import FerryIO

/// A non-blocking `AF_NETLINK`/`NETLINK_ROUTE` socket joined to the link, address and route
/// multicast groups. Owns its descriptor.
///
/// One owner thread at a time (its ``EventLoop`` once monitoring runs); `@unchecked Sendable`
/// only so it can be handed to the loop.
package final class NetlinkSocket: @unchecked Sendable {
    /// What one ``receive(into:)`` got.
    package enum Received: Sendable, Equatable {
        /// A whole datagram of this many bytes is at the start of the buffer.
        case datagram(Int)
        /// Nothing to read now.
        case wouldBlock
        /// Messages were lost: the kernel said `ENOBUFS` (the receive buffer overflowed), or
        /// a datagram was larger than the buffer and its tail was cut off (`MSG_TRUNC`).
        case lost
        /// A datagram not sent by the kernel (another process's port); dropped unread.
        case foreign(portID: UInt32)
    }

    /// The receive buffer asked for: a link going down can produce hundreds of messages at
    /// once, and the kernel drops what does not fit (then a fresh dump repairs it). The
    /// kernel caps the request at `net.core.rmem_max`.
    package static let defaultReceiveBufferSize: Int32 = 1 << 20

    /// The descriptor, -1 once closed.
    package private(set) var fd: Int32
    /// The port ID the kernel gave this socket; replies to its requests carry it.
    package let portID: UInt32

    private init(fd: Int32, portID: UInt32) {
        self.fd = fd
        self.portID = portID
    }

    deinit {
        close()
    }

    /// Opens a socket in the calling thread's network namespace.
    /// - Parameter receiveBufferSize: `SO_RCVBUF` in bytes.
    /// - Throws: ``SystemError`` from `socket`, `setsockopt`, `bind` or `getsockname`.
    package static func open(receiveBufferSize: Int32 = defaultReceiveBufferSize) throws(SystemError) -> NetlinkSocket {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = try blockingSystemCall("socket") { socket(AF_NETLINK, type, NETLINK_ROUTE) }
        do {
            var size = receiveBufferSize
            _ = try blockingSystemCall("setsockopt") {
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            var address = sockaddr_nl()
            address.nl_family = sa_family_t(AF_NETLINK)
            address.nl_groups = Netlink.groups
            _ = try withUnsafePointer(to: &address) { (pointer) throws(SystemError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (generic) throws(SystemError) in
                    try blockingSystemCall("bind") { bind(fd, generic, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
                }
            }
            var bound = sockaddr_nl()
            var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
            _ = try withUnsafeMutablePointer(to: &bound) { (pointer) throws(SystemError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (generic) throws(SystemError) in
                    try blockingSystemCall("getsockname") { getsockname(fd, generic, &length) }
                }
            }
            return NetlinkSocket(fd: fd, portID: bound.nl_pid)
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
    }

    /// Opens a socket in the network namespace bound at `path` (such as
    /// `/var/run/netns/NAME`, made by `ip netns add`), leaving the caller's namespace alone.
    ///
    /// A socket belongs to the namespace of the thread that created it, for life. So a
    /// short-lived thread enters the namespace (`setns`), creates the socket and ends; the
    /// socket then works from any thread. Blocks the caller for that thread's few system calls.
    /// - Throws: ``SystemError`` from `open`, `setns` (`EPERM` without `CAP_SYS_ADMIN`),
    ///   `pthread_create` or ``open(receiveBufferSize:)``.
    package static func open(
        inNetworkNamespaceAt path: String, receiveBufferSize: Int32 = defaultReceiveBufferSize
    ) throws(SystemError) -> NetlinkSocket {
        let namespaceFD = try blockingSystemCall("open") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        defer { _ = Glibc.close(namespaceFD) }
        final class Outcome: @unchecked Sendable {
            // Written by the helper thread before it signals; read after the wait.
            var result: Result<NetlinkSocket, SystemError> = .failure(SystemError(errno: ECANCELED, syscall: "pthread_create"))
        }
        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        let body: @Sendable () -> Void = {
            if cferry_setns_net(namespaceFD) != 0 {
                outcome.result = .failure(SystemError(errno: errno, syscall: "setns"))
            } else {
                outcome.result = Result { () throws(SystemError) in try open(receiveBufferSize: receiveBufferSize) }
            }
            finished.signal()
        }
        let box = Unmanaged.passRetained(ThreadBody(body))
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(argument).takeRetainedValue().body()
            return nil
        }, box.toOpaque())
        guard created == 0 else {
            box.release()
            throw SystemError(errno: created, syscall: "pthread_create")
        }
        finished.wait()
        _ = pthread_join(thread, nil)
        return try outcome.result.get()
    }

    private final class ThreadBody: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Sends one request to the kernel.
    /// - Throws: ``SystemError`` from `sendto`; `EAGAIN` (the kernel could not take it now)
    ///   is thrown too, since a request is never queued here.
    package func send(_ bytes: [UInt8]) throws(SystemError) {
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        // Array.withUnsafeBytes rethrows untyped errors: carry the typed one out as a Result.
        let outcome: Result<Int, SystemError> = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &kernel) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    Result { () throws(SystemError) in
                        try blockingSystemCall("sendto") {
                            sendto(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), generic, socklen_t(MemoryLayout<sockaddr_nl>.size))
                        }
                    }
                }
            }
        }
        _ = try outcome.get()
    }

    /// Reads one datagram into `buffer`.
    /// - Throws: ``SystemError`` from `recvfrom` other than `EAGAIN` and `ENOBUFS`.
    package func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Received {
        var sender = sockaddr_nl()
        var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
        let result: IOResult<Int>
        do throws(SystemError) {
            result = try withUnsafeMutablePointer(to: &sender) { (pointer) throws(SystemError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (generic) throws(SystemError) in
                    // MSG_TRUNC: the datagram's real length comes back even when it was cut.
                    try systemCall("recvfrom") { recvfrom(fd, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC), generic, &length) }
                }
            }
        } catch where error.errno == ENOBUFS {
            return .lost
        }
        switch result {
        case .wouldBlock: return .wouldBlock
        case .processed(let count) where count > buffer.count: return .lost
        case .processed(let count):
            return sender.nl_pid == 0 ? .datagram(count) : .foreign(portID: sender.nl_pid)
        }
    }

    /// Closes the descriptor. Idempotent; deregister it from its loop first.
    package func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }
}
