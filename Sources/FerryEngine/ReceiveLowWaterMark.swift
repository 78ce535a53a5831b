#if canImport(Glibc)
import Glibc
#endif
import FerryIO

/// The socket's receive low-water mark (`SO_RCVLOWAT`), raised while a large body arrives
/// fast so that epoll wakes the loop once per large part of a chunk rather than once per burst.
///
/// A fast TLS peer has only a few dozen KiB queued each time epoll reports the socket: reading
/// a 1 GiB body that way costs about 20,000 sleeps and wake-ups of the loop thread. With the
/// mark raised, Linux reports the socket only once ``raisedValue`` bytes wait (or the peer
/// closed, or the receive window is nearly shut), so one wake-up reads at least that much.
///
/// Raising it must never strand bytes the peer has already sent, so the mark is raised only
/// while more than ``raisedValue`` body bytes are still to come beyond what the transport may
/// already hold (`margin`: TLS reads ahead of the records it returns). That rule alone covers
/// a peer that sends the whole body; ``HTTP1Connection`` lowers the mark when a peer slows
/// down (its read timer finds the socket quiet), when the consumer pauses, and before the
/// connection serves its next response.
struct ReceiveLowWaterMark {
    /// The bytes epoll waits for while the mark is raised.
    static let raisedValue: Int32 = 128 * 1024

    /// Whether the socket's mark is raised now (else it is Linux's default, 1 byte).
    private(set) var isRaised = false

    /// Whether `remaining` body bytes, less a `margin` the transport may hold already, leave
    /// room for a raised mark.
    static func fits(remaining: Int64, margin: Int) -> Bool {
        remaining - Int64(margin) >= Int64(raisedValue)
    }

    /// Sets the mark for a body with `remaining` bytes still to come: lowers it when it no longer
    /// fits, and raises it when it fits and the body just proved `fast` (a chunk filled over
    /// several wake-ups of the loop).
    /// - Throws: ``SystemError`` from `setsockopt`.
    mutating func update(remaining: Int64, margin: Int, fast: Bool, on socket: Socket) throws(SystemError) {
        let fits = Self.fits(remaining: remaining, margin: margin)
        if isRaised && !fits {
            try set(raised: false, on: socket)
        } else if !isRaised && fast && fits {
            try set(raised: true, on: socket)
        }
    }

    /// Lowers a raised mark, so epoll reports every byte again.
    /// - Throws: ``SystemError`` from `setsockopt`.
    mutating func lower(on socket: Socket) throws(SystemError) {
        if isRaised { try set(raised: false, on: socket) }
    }

    private mutating func set(raised: Bool, on socket: Socket) throws(SystemError) {
        try socket.setOption(SOL_SOCKET, SO_RCVLOWAT, raised ? Self.raisedValue : 1)
        isRaised = raised
    }
}
