// ForwardProxy's CONNECT tunnel: bytes relayed both ways between the client and the target,
// with half-closes passed on, on the connection's thread with one poll(2) loop.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Internal: relays between two non-blocking sockets until both directions have ended (each
/// side's FIN is passed on as a `shutdown(SHUT_WR)` of the other), either side fails (the
/// other is then reset, so the failure shows), nothing moves for `idleTimeout`, or the wake
/// pipe fires. It never closes the descriptors; its caller does.
struct ProxyTunnel {
    /// One direction: bytes read from `from` wait in `pending` until written to `to`.
    private struct Direction {
        let from: Int32
        let to: Int32
        var pending: [UInt8]
        var sent = 0
        /// `from` reached EOF.
        var readEnded = false
        /// … and everything was written and `to` shut down for writing.
        var finished = false

        var hasPending: Bool { sent < pending.count }

        /// The poll events this direction needs on `fd`.
        func interest(in fd: Int32) -> Int16 {
            var events: Int16 = 0
            if fd == from && !readEnded && !hasPending { events |= Int16(POLLIN) }
            if fd == to && hasPending { events |= Int16(POLLOUT) }
            return events
        }
    }

    let client: Int32
    let origin: Int32
    let wake: Int32
    let idleTimeout: Duration

    /// Relays until the tunnel ends.
    /// - Parameter early: bytes the client sent after its CONNECT head, before the 200 (they
    ///   go to the target first).
    func run(early: [UInt8]) {
        var up = Direction(from: client, to: origin, pending: early)
        var down = Direction(from: origin, to: client, pending: [])
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while !(up.finished && down.finished) {
            let clientEvents = up.interest(in: client) | down.interest(in: client)
            let originEvents = up.interest(in: origin) | down.interest(in: origin)
            // A descriptor with nothing to wait for is left out (-1): poll would otherwise
            // report its hang-up again and again.
            var fds = [
                pollfd(fd: clientEvents == 0 ? -1 : client, events: clientEvents, revents: 0),
                pollfd(fd: originEvents == 0 ? -1 : origin, events: originEvents, revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let result = poll(&fds, 3, Self.milliseconds(idleTimeout))
            if result < 0 {
                if errno == EINTR { continue }
                return abort()
            }
            if result == 0 || fds[2].revents != 0 { return }  // idle too long, or shutting down
            let revents = [client: fds[0].revents, origin: fds[1].revents]
            guard step(&up, revents, scratch: &scratch), step(&down, revents, scratch: &scratch) else { return abort() }
        }
    }

    /// Moves bytes for one direction if its descriptors are ready; `false` on a failure.
    private func step(_ direction: inout Direction, _ revents: [Int32: Int16], scratch: inout [UInt8]) -> Bool {
        let readable = Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)
        let writable = Int16(POLLOUT) | Int16(POLLHUP) | Int16(POLLERR)
        if direction.hasPending, (revents[direction.to] ?? 0) & writable != 0 {
            let sent = direction.pending.withUnsafeBytes { raw in
                send(direction.to, raw.baseAddress! + direction.sent, raw.count - direction.sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if sent >= 0 {
                direction.sent += sent
                if !direction.hasPending {
                    direction.pending.removeAll(keepingCapacity: true)
                    direction.sent = 0
                }
            } else if !Self.isTransient(errno) {
                return false
            }
        } else if !direction.hasPending, !direction.readEnded, (revents[direction.from] ?? 0) & readable != 0 {
            let count = scratch.withUnsafeMutableBytes { recv(direction.from, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                direction.pending = Array(scratch[0..<count])
                direction.sent = 0
            } else if count == 0 {
                direction.readEnded = true
            } else if !Self.isTransient(errno) {
                return false
            }
        }
        if direction.readEnded, !direction.hasPending, !direction.finished {
            Glibc.shutdown(direction.to, Int32(SHUT_WR))
            direction.finished = true
        }
        return true
    }

    /// A failure on one side: reset both, so the other side's peer sees it too.
    private func abort() {
        POSIXSocket.setResetOnClose(client)
        POSIXSocket.setResetOnClose(origin)
    }

    private static func isTransient(_ code: Int32) -> Bool {
        code == EAGAIN || code == EWOULDBLOCK || code == EINTR
    }

    /// A poll timeout in milliseconds, rounded up, clamped to `Int32`.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return 0 }
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        if millis.overflow { return Int32.max }
        return Int32(clamping: millis.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
