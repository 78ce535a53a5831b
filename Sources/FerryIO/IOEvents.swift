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
