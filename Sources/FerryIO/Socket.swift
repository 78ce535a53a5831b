import CFerryShims
#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking stream socket that owns its descriptor.
///
/// Created close-on-exec and non-blocking in the same `socket` call (no window where a
/// forked child inherits it), with `TCP_NODELAY` for TCP (request heads must not wait for
/// Nagle). Writes go through `send`/`sendmsg` with `MSG_NOSIGNAL`, so writing to a closed peer
/// returns `EPIPE` instead of raising SIGPIPE; Ferry never touches signal handlers.
///
/// One owner thread at a time: normally its ``EventLoop``. `@unchecked Sendable` only so
/// ownership can be handed to a loop (through ``EventLoop/execute(_:)``, whose lock orders the
/// memory); two threads must never use one socket at once.
package final class Socket: @unchecked Sendable, CustomStringConvertible {
    /// The descriptor, or -1 once closed (calls then fail with `EBADF`).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    package private(set) var fd: Int32

    /// Takes ownership of `fd`, which must already be non-blocking (for example one end of a
    /// `socketpair` made with `SOCK_NONBLOCK`). The socket closes it.
    package init(adopting fd: Int32) {
        self.fd = fd
    }

    deinit {
        close()
    }

    /// `Socket(fd: N)`.
    package var description: String { "Socket(fd: \(fd))" }

    // MARK: - Creating

    private static func makeStream(family: SocketAddress.Family) throws(SystemError) -> Socket {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = try blockingSystemCall("socket") { Glibc.socket(family.rawValue, type, 0) }
        return Socket(adopting: fd)
    }

    /// Starts a non-blocking TCP connect to `address`.
    ///
    /// `EINPROGRESS` is the normal answer: register for ``IOEvents/write`` and call
    /// ``finishConnect()`` when writable.
    /// - Throws: ``SystemError`` when `socket` fails or `connect` fails at once
    ///   (`ENETUNREACH` for a family without a route, `ECONNREFUSED`, …).
    package static func connect(to address: SocketAddress) throws(SystemError) -> Socket {
        let socket = try makeStream(family: address.family)
        try socket.setOption(IPPROTO_TCP_LEVEL, TCP_NODELAY, 1)
        let result = address.withSockAddr { pointer, length in
            Glibc.connect(socket.fd, pointer, length) == 0 ? 0 : errno
        }
        // EINTR on a non-blocking connect means it continues in the background, like EINPROGRESS.
        guard result == 0 || result == EINPROGRESS || result == EINTR else {
            throw SystemError(errno: result, syscall: "connect")
        }
        return socket
    }

    /// Completes a connect started by ``connect(to:)`` once the socket is writable.
    /// - Throws: ``SystemError`` named `connect` with the connect's `errno` (`SO_ERROR`), such as
    ///   `ECONNREFUSED` or `ETIMEDOUT`.
    package func finishConnect() throws(SystemError) {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = try blockingSystemCall("getsockopt") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) }
        if code != 0 { throw SystemError(errno: code, syscall: "connect") }
    }

    /// A non-blocking listening TCP socket on `address` (port 0 picks a free port; read it from
    /// ``localAddress``). For tests and local servers; `SO_REUSEADDR` is set.
    /// - Throws: ``SystemError`` from `socket`, `bind` or `listen` (`EADDRNOTAVAIL` when, for
    ///   example, IPv6 loopback does not exist).
    package static func listen(on address: SocketAddress, backlog: Int32 = 128) throws(SystemError) -> Socket {
        let socket = try makeStream(family: address.family)
        try socket.setOption(SOL_SOCKET, SO_REUSEADDR, 1)
        _ = try address.withSockAddr { (pointer, length) throws(SystemError) in
            try blockingSystemCall("bind") { bind(socket.fd, pointer, length) }
        }
        _ = try blockingSystemCall("listen") { Glibc.listen(socket.fd, backlog) }
        return socket
    }

    /// Accepts one pending connection: non-blocking, close-on-exec, with `TCP_NODELAY`.
    ///
    /// One `accept4` sets both flags as the socket is made: a test that spawns a process (curl,
    /// openssl, the `ferry` tool) while its server accepts must not hand the child the server's
    /// end of a connection, or the connection outlives the server's close.
    /// - Throws: ``SystemError`` from `accept4` or `setsockopt`.
    package func accept() throws(SystemError) -> IOResult<Socket> {
        switch try systemCall("accept4", { cferry_accept_nonblocking_cloexec(fd) }) {
        case .wouldBlock:
            return .wouldBlock
        case .processed(let accepted):
            let socket = Socket(adopting: accepted)
            try socket.setOption(IPPROTO_TCP_LEVEL, TCP_NODELAY, 1)
            return .processed(socket)
        }
    }

    /// Sets an integer socket option.
    /// - Throws: ``SystemError`` from `setsockopt`.
    package func setOption(_ level: Int32, _ name: Int32, _ value: Int32) throws(SystemError) {
        var value = value
        _ = try blockingSystemCall("setsockopt") {
            setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    // MARK: - Reading and writing

    /// Reads what is available into `buffer`.
    /// - Returns: `.processed(n)` with n > 0 bytes, `.processed(0)` at EOF, or `.wouldBlock`.
    /// - Throws: ``SystemError`` from `read` (`ECONNRESET`, `EBADF` after ``close()``, …).
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try systemCall("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Writes as much of `buffer` as the send buffer takes.
    /// - Returns: `.processed(n)` (possibly fewer than `buffer.count`) or `.wouldBlock`.
    /// - Throws: ``SystemError`` from `send`: `EPIPE`/`ECONNRESET` when the peer is gone.
    package func write(_ buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try systemCall("send") { send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Writes the buffers in order with one `sendmsg` (a request head and its body in one
    /// syscall, one TCP segment when they fit). At most `IOV_MAX` buffers go per call.
    /// - Returns: `.processed(n)` with the total bytes written across buffers, or `.wouldBlock`.
    /// - Throws: ``SystemError`` from `sendmsg`: `EPIPE`/`ECONNRESET` when the peer is gone.
    package func writev(_ buffers: [UnsafeRawBufferPointer]) throws(SystemError) -> IOResult<Int> {
        let count = min(buffers.count, Self.maxIOVectors)
        return try withUnsafeTemporaryAllocation(of: iovec.self, capacity: max(count, 1)) { vectors throws(SystemError) in
            for index in 0..<count {
                let buffer = buffers[index]
                vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress), iov_len: buffer.count)
            }
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = count
            return try systemCall("sendmsg") { sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) }
        }
    }

    private static let maxIOVectors: Int = {
        let limit = sysconf(Int32(_SC_IOV_MAX))
        return limit > 0 ? limit : 1024  // 1024 is Linux's UIO_MAXIOV
    }()

    // MARK: - Closing

    /// Sends FIN (the peer reads EOF) while reading stays possible.
    /// - Throws: ``SystemError`` from `shutdown` (`ENOTCONN` when not connected).
    package func shutdownWrite() throws(SystemError) {
        _ = try blockingSystemCall("shutdown") { Glibc.shutdown(fd, Int32(SHUT_WR)) }
    }

    /// Closes the descriptor. Idempotent. Deregister it from its loop first.
    ///
    /// Not retried on `EINTR`: on Linux the descriptor is released even then, and a retry
    /// could close a number another thread was just given.
    package func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }

    // MARK: - Addresses

    /// The local address (`getsockname`).
    /// - Throws: ``SystemError`` (`EAFNOSUPPORT` for a non-IP socket such as a socketpair).
    package var localAddress: SocketAddress {
        get throws(SystemError) { try address("getsockname") { getsockname(fd, $0, $1) } }
    }

    /// The peer's address (`getpeername`).
    /// - Throws: ``SystemError`` (`ENOTCONN` before the connect finished).
    package var remoteAddress: SocketAddress {
        get throws(SystemError) { try address("getpeername") { getpeername(fd, $0, $1) } }
    }

    private func address(
        _ name: StaticString,
        _ call: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) throws(SystemError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { (pointer) throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SystemError) in
                try blockingSystemCall(name) { call(address, &length) }
            }
        }
        guard let result = SocketAddress(storage: storage) else {
            throw SystemError(errno: EAFNOSUPPORT, syscall: "\(name)")
        }
        return result
    }
}

/// `IPPROTO_TCP` as the `Int32` level `setsockopt` takes (Glibc imports it as an enum case).
private let IPPROTO_TCP_LEVEL = Int32(IPPROTO_TCP)
