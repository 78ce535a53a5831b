// Plain blocking-style POSIX socket helpers (no NIO, no Ferry) for ScriptedServer and
// RawHTTPClient. Sockets are non-blocking; every wait is a poll(2) with a timeout and an
// optional wake-up pipe, so nothing here can block forever.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Internal socket helpers; every function returns or throws ``TestServerError``.
enum POSIXSocket {
    /// What a `poll` wait ended with.
    enum WaitResult: Equatable {
        /// The socket has one of the requested events (or an error / hang-up).
        case ready(revents: Int16)
        /// The timeout passed first.
        case timedOut
        /// The wake-up pipe fired: the owner is shutting down.
        case woken
    }

    /// Linux's POLLRDHUP (peer closed its writing side); Glibc does not always import it.
    static let pollReadHangUp: Int16 = 0x2000

    /// A loopback socket address for `host`, which must be `127.0.0.1` or `::1`.
    static func loopbackAddress(host: String, port: Int) throws(TestServerError) -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        if host == "127.0.0.1" {
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                sin.pointee.sin_family = sa_family_t(AF_INET)
                sin.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
                sin.pointee.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            }
            return (storage, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
        if host == "::1" {
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                sin6.pointee.sin6_family = sa_family_t(AF_INET6)
                sin6.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
                sin6.pointee.sin6_addr = in6addr_loopback
            }
            return (storage, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
        throw .notLoopback(host)
    }

    /// A non-blocking listening socket on `host`, port 0 (random).
    /// - Returns: the descriptor and the port the kernel chose.
    static func listen(host: String, backlog: Int32 = 64) throws(TestServerError) -> (fd: Int32, port: Int) {
        var (address, length) = try loopbackAddress(host: host, port: 0)
        let fd = socket(Int32(address.ss_family), socketType(nonBlocking: true), 0)
        guard fd >= 0 else { throw .system("socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { let code = errno; close(fd); throw .system("bind", errno: code) }
        guard Glibc.listen(fd, backlog) == 0 else { let code = errno; close(fd); throw .system("listen", errno: code) }
        let bound2 = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound2 == 0 else { let code = errno; close(fd); throw .system("getsockname", errno: code) }
        let port = withUnsafeBytes(of: &address) { raw -> UInt16 in
            // sin_port and sin6_port sit at the same offset (2) in both layouts.
            UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
        }
        return (fd, Int(port))
    }

    /// Connects a non-blocking socket to `host:port`, waiting at most `timeout`.
    static func connect(host: String, port: Int, timeout: Duration) throws(TestServerError) -> Int32 {
        var (address, length) = try loopbackAddress(host: host, port: port)
        let fd = socket(Int32(address.ss_family), socketType(nonBlocking: true), 0)
        guard fd >= 0 else { throw .system("socket", errno: errno) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        if result != 0 {
            guard errno == EINPROGRESS else { let code = errno; close(fd); throw .system("connect", errno: code) }
            guard case .ready = wait(fd: fd, events: Int16(POLLOUT), wake: -1, timeout: timeout) else {
                close(fd)
                throw TestServerError("connect to \(host):\(port) timed out")
            }
            var soError: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &size)
            guard soError == 0 else { close(fd); throw .system("connect", errno: soError) }
        }
        return fd
    }

    /// Accepts one pending connection as a non-blocking socket, or returns `nil` if none is pending.
    static func accept(listener: Int32) throws(TestServerError) -> Int32? {
        // accept is GNU-only and not imported; set the flags by hand.
        let fd = Glibc.accept(listener, nil, nil)
        if fd >= 0 {
            configure(fd)
            return fd
        }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR || code == ECONNABORTED { return nil }
        throw .system("accept", errno: code)
    }

    /// Waits until `fd` has one of `events`, `wake` becomes readable, or `timeout` passes.
    /// - Parameter wake: a pipe's read end, or -1 for none.
    static func wait(fd: Int32, events: Int16, wake: Int32, timeout: Duration) -> WaitResult {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let count: nfds_t = wake >= 0 ? 2 : 1
        while true {
            let left = max(clock.now.duration(to: deadline), .zero)
            let result = poll(&fds, count, milliseconds(left))
            if result < 0 {
                if errno == EINTR { continue }
                return .ready(revents: Int16(POLLERR))
            }
            if count == 2 && fds[1].revents != 0 { return .woken }
            if fd >= 0 && fds[0].revents != 0 { return .ready(revents: fds[0].revents) }
            if clock.now >= deadline { return .timedOut }
        }
    }

    /// Sleeps for `duration` unless `wake` fires first.
    /// - Returns: `false` when woken (shutting down).
    static func sleep(_ duration: Duration, wake: Int32) -> Bool {
        if duration < .milliseconds(1) {
            // poll counts whole milliseconds: a shorter pause sleeps (and a shutdown waits it out).
            let (seconds, attoseconds) = duration.components
            guard seconds >= 0, attoseconds > 0 else { return true }
            var pause = timespec(tv_sec: 0, tv_nsec: Int(attoseconds / 1_000_000_000))
            var left = timespec()
            while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
            return true
        }
        return wait(fd: -1, events: 0, wake: wake, timeout: duration) != .woken
    }

    /// Makes the next `close` send RST instead of FIN (SO_LINGER on, timeout 0).
    static func setResetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// A pipe whose read end wakes `wait`; both ends close-on-exec and non-blocking.
    static func makeWakePipe() throws(TestServerError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system("pipe", errno: errno) }
        configure(ends[0])
        configure(ends[1])
        return (ends[0], ends[1])
    }

    /// Marks `fd` non-blocking and close-on-exec.
    private static func configure(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// `SOCK_STREAM | SOCK_CLOEXEC`, plus `SOCK_NONBLOCK` when asked.
    private static func socketType(nonBlocking: Bool) -> Int32 {
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        return type
    }

    /// A poll timeout in milliseconds, rounded up, clamped to `Int32`.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return 0 }
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        if millis.overflow { return Int32.max }
        let extra = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: millis.partialValue + extra)
    }
}
