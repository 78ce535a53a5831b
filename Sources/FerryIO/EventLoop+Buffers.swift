// Connections' buffers, lent by their loop (SpareBuffers).
extension EventLoop {
    /// A buffer of `byteCount` bytes for a connection on this loop: a spare one given back
    /// earlier, else a new one. Loop thread only.
    package func takeBuffer(byteCount: Int) -> ConnectionBuffer {
        preconditionInEventLoop()
        return spares.take(byteCount: byteCount) ?? ConnectionBuffer(byteCount: byteCount)
    }

    /// Takes back a buffer of ``takeBuffer(byteCount:)`` whose user is done with it: kept as
    /// a spare when called on the loop's thread and ``SpareBuffers`` has room, released
    /// otherwise. Callable from any thread (a connection may end elsewhere).
    package func giveBack(_ buffer: ConnectionBuffer) {
        guard inEventLoop else { return }
        let now = Deadline.now()
        guard spares.keep(buffer, at: now), spares.trimTimer == nil else { return }
        scheduleSpareTrim(at: now + SpareBuffers.lifetime)
    }

    private func scheduleSpareTrim(at deadline: Deadline) {
        spares.trimTimer = scheduleTimer(at: deadline) { [weak self] in
            guard let self else { return }
            spares.trimTimer = nil
            if let next = spares.trim(at: .now()) { scheduleSpareTrim(at: next) }
        }
    }
}
