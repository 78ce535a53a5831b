import CFerryShims

/// The readiness a registered descriptor is interested in.
///
/// Level-triggered: while the condition holds the loop keeps reporting it, so a handler that
/// is not ready to consume must narrow its interest with ``EventLoop/modify(fd:interest:)``.
package struct IOEvents: OptionSet, Sendable, Hashable {
    /// The raw bits (Ferry's own, not epoll's; see ``epollBits``).
    package let rawValue: UInt8

    /// Creates a set from raw bits.
    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Data (or EOF, or a pending error) can be read.
    package static let read = IOEvents(rawValue: 1 << 0)
    /// The send buffer has room, or a non-blocking connect finished.
    package static let write = IOEvents(rawValue: 1 << 1)

    /// The epoll bits for this interest. The only place `IOEvents` becomes epoll bits.
    ///
    /// `EPOLLRDHUP` joins `.read` only: a handler reading the socket learns about the peer's
    /// half-close from it, while one only waiting to write must not be woken forever by it
    /// (level-triggered). `EPOLLERR`/`EPOLLHUP` are always reported by the kernel.
    package var epollBits: UInt32 {
        var bits: UInt32 = 0
        if contains(.read) { bits |= cferry_epollin() | cferry_epollrdhup() }
        if contains(.write) { bits |= cferry_epollout() }
        return bits
    }
}

/// The object an ``EventLoop`` calls when a registered descriptor is ready.
///
/// All calls happen on the loop's thread. A handler may modify, deregister or close its own
/// or another descriptor during a call; the loop re-checks the registration before each call.
/// Because events are level-triggered, a handler must act on what it is told (read, write,
/// narrow its interest or deregister) or it is called again on the next turn.
package protocol IOHandler: AnyObject {
    /// The descriptor is readable: data, EOF (read returns 0) or a pending error.
    func readable()
    /// The descriptor is writable, or its non-blocking connect completed (check `SO_ERROR`).
    func writable()
    /// `EPOLLHUP`, `EPOLLRDHUP` or `EPOLLERR`: the peer hung up or the socket has an error.
    /// Read (or ask `SO_ERROR`) to learn which, then deregister or close.
    func hangup()
}
