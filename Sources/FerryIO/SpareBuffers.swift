/// The buffers an event loop's ended connections gave back, for its next connections: with one
/// request per connection (W5), allocating, mapping, unmapping and first touching a
/// connection's read and TLS buffers each time cost about 20 to 30 µs of kernel time.
///
/// Bounded twice: at most ``maximumPerSize`` of each size (a TLS connection's two ciphertext
/// buffers; 640 KiB of address space with the engine's sizes), and all are released once none
/// was kept for ``lifetime`` (or when the loop stops), so an idle session keeps no buffer.
/// Pure bookkeeping: the loop calls it on its own thread and runs the timer
/// (`EventLoop+Buffers.swift`).
struct SpareBuffers {
    /// Most spares kept of one size.
    static let maximumPerSize = 2
    /// How long spares are kept after the last one was kept.
    static let lifetime: Duration = .seconds(1)

    private var buffers: [ConnectionBuffer] = []
    private var lastKept = Deadline(uptimeNanoseconds: 0)
    /// The timer that will call ``trim(at:)``, while one is scheduled.
    var trimTimer: TimerID?

    /// How many are kept.
    var count: Int { buffers.count }

    /// A spare of `byteCount` bytes, taken out; nil when none is kept.
    mutating func take(byteCount: Int) -> ConnectionBuffer? {
        guard let index = buffers.lastIndex(where: { $0.bytes.count == byteCount }) else { return nil }
        return buffers.remove(at: index)
    }

    /// Keeps `buffer` unless ``maximumPerSize`` of its size are kept already.
    /// - Returns: whether it was kept (else its last reference goes with the caller's).
    mutating func keep(_ buffer: ConnectionBuffer, at now: Deadline) -> Bool {
        assert(!buffers.contains { $0 === buffer }, "a buffer given back twice would serve two connections")
        let size = buffer.bytes.count
        guard buffers.lazy.filter({ $0.bytes.count == size }).count < Self.maximumPerSize else { return false }
        buffers.append(buffer)
        lastKept = now
        return true
    }

    /// Releases every spare when none was kept for ``lifetime``.
    /// - Returns: when to look again, or nil when nothing is kept any more.
    mutating func trim(at now: Deadline) -> Deadline? {
        guard !buffers.isEmpty else { return nil }
        let due = lastKept + Self.lifetime
        guard now < due else {
            buffers.removeAll()
            return nil
        }
        return due
    }
}
