import FerryIO

/// Reading a large body straight into the arrays its consumer will own: the chunk being
/// gathered, the timer that hands a short one over, and the receive low-water mark raised
/// while the body arrives fast. The read loop in `HTTP1Connection.swift` calls in here when
/// ``directBodyReadSize(for:)`` says the next bytes are body bytes worth reading this way.
extension HTTP1Connection {
    /// Body bytes smaller than this go through the read buffer: a fresh array per read is
    /// worth it only for large slices.
    static let directBodyReadMinimum = 16 * 1024

    /// The capacity of an array gathered for the consumer: one array is one consumer wake-up.
    ///
    /// Over plain TCP, twice the read buffer: the socket seldom holds more than half of it at
    /// once, so an array fills over a few reads while its consumer sleeps. Measured on 1 GiB
    /// over plain HTTP (W3), 15 interleaved runs: 512 KiB arrays halved the consumer's
    /// wake-ups and took 0.22 s of CPU against 0.30 s with 256 KiB (curl 0.28), for about
    /// 1 MiB more at the peak. Over TLS, the read buffer's size: OpenSSL hands over at most
    /// four records per read(2) (`TLSClientContext.readBufferLength`), so arrays fill over many
    /// reads at any size; 512 KiB saved 5% of W4's CPU and cost 0.6 MiB more at the peak.
    static func directChunkCapacity(secure: Bool) -> Int {
        secure ? readBufferSize : 2 * readBufferSize
    }

    /// How long bytes read into a direct chunk may wait for more before a timer hands them
    /// over: gathering saves a consumer wake-up per burst, and this bounds what it costs a
    /// slow body in latency.
    static let directChunkFlushDelay: Duration = .milliseconds(1)

    /// How many bytes to read straight into an array for the consumer, if that is the next
    /// step: a started chunk's room, or, for a new one, when the exchange takes owned chunks,
    /// nothing read waits to be parsed, and the framing says at least
    /// ``directBodyReadMinimum`` body bytes come next.
    func directBodyReadSize(for exchange: Exchange) -> Int? {
        if !directChunk.isEmpty { return directChunk.room }
        guard pending == nil, pendingBody == nil, exchange.acceptsOwnedBody else { return nil }
        let expected = parser.bodyBytesReadableDirectly
        guard expected >= Self.directBodyReadMinimum else { return nil }
        return Int(min(expected, Int64(Self.directChunkCapacity(secure: transport.tls != nil))))
    }

    /// Reads up to `size` body bytes straight into the array the consumer will own
    /// (``directChunk``, started at that size when empty), sparing the copy out of the read
    /// buffer (for TLS, OpenSSL decrypts straight into it).
    /// A full chunk is handed over at once; one the socket left short waits for more, for at
    /// most ``directChunkFlushDelay``.
    /// - Returns: Whether bytes arrived and reading may go on (not blocked, ended, failed or
    ///   paused).
    func readBodyDirectly(_ size: Int, for exchange: Exchange) -> Bool {
        if directChunk.isEmpty {
            directChunk.start(size: size, reusing: exchange.reusableBodyChunk(minimumCapacity: size))
        }
        let result: IOResult<Int>
        do throws(TransportFailure) {
            result = try directChunk.read(from: transport, upTo: size)
        } catch {
            if flushDirectChunk(to: exchange) { transportFailed(error, whileReading: true) }
            return false
        }
        switch result {
        case .wouldBlock:
            return false
        case .processed(0):
            if flushDirectChunk(to: exchange) { endOfInput() }
            return false
        case .processed(let count):
            lastActivity = .now()
            exchange.request.bandwidth?.download?.consume(count)
            parser.bodyBytesReadDirectly(count)
            guard directChunk.room == 0 else {
                // The body's tail may be shorter than a raised mark: lower it in time.
                guard updateLowWater(fast: false) else { return false }
                armDirectChunkTimer()
                return true
            }
            return handOffDirectChunk(to: exchange)
        }
    }

    /// Hands the gathered chunk to the exchange; the bytes may have completed the body (or a
    /// chunk), so the parser then says what follows from no new input, now or, after a
    /// pause, when the consumer resumes.
    ///
    /// A chunk that filled over several reads shows a body fast enough to fill one within the
    /// timer's delay, yet slower than the loop (which ran the socket dry between them, and
    /// slept): the low-water mark goes up while enough of the body remains, and the timer
    /// watches a raised mark, so a peer that stops short of it is still read.
    /// - Returns: Whether reading may go on (the exchange neither failed nor paused).
    private func handOffDirectChunk(to exchange: Exchange) -> Bool {
        cancelDirectChunkTimer()
        let filledOverReads = directChunk.room == 0 && directChunk.reads > 1
        let demand: BodyDemand
        do throws(EngineError) {
            demand = try exchange.receivedBody(owned: directChunk.take())
        } catch {
            run(machine.exchangeFailed(error))
            return false
        }
        if case .pause = demand {
            pauseReading()
            pending = 0..<0
            return false
        }
        guard !isClosed, self.exchange === exchange else { return false }
        process(0..<0)
        guard !isClosed, !readingPaused else { return false }
        if self.exchange === exchange {
            guard updateLowWater(fast: filledOverReads) else { return false }
            if lowWater.isRaised { armDirectChunkTimer() }
        }
        return true
    }

    /// Hands over the bytes gathered so far, if any: when the flush timer fires, and before the
    /// end of input or a failure is reported (a download keeps them to resume from, an error
    /// counts them).
    /// - Returns: Whether the exchange is still running, to hear the end or the failure.
    private func flushDirectChunk(to exchange: Exchange) -> Bool {
        if !directChunk.isEmpty { _ = handOffDirectChunk(to: exchange) }
        return !isClosed && self.exchange === exchange
    }

    private func armDirectChunkTimer() {
        guard directChunkTimer == nil else { return }
        directChunkTimer = loop.scheduleTimer(at: .now() + Self.directChunkFlushDelay) { [weak self] in
            self?.directChunkTimerFired()
        }
    }

    /// No chunk filled for ``directChunkFlushDelay``: the body slowed down. Bytes below a
    /// raised mark wait unannounced, so the mark goes down and they are read now; then what
    /// was gathered is handed over.
    private func directChunkTimerFired() {
        directChunkTimer = nil
        guard let exchange, !isClosed else { return }
        if lowWater.isRaised {
            guard lowerLowWater() else { return }
            readable()
            guard !isClosed, self.exchange === exchange else { return }
        }
        _ = flushDirectChunk(to: exchange)
    }

    /// Sets ``lowWater`` for the body bytes still to come (see ``ReceiveLowWaterMark``).
    /// - Returns: `false` when `setsockopt` failed, which failed the exchange.
    private func updateLowWater(fast: Bool) -> Bool {
        updateLowWater(remaining: parser.bodyBytesReadableDirectly, fast: fast)
    }

    /// Lowers a raised ``lowWater``, so epoll reports every byte again.
    /// - Returns: `false` when `setsockopt` failed, which failed the exchange.
    func lowerLowWater() -> Bool {
        updateLowWater(remaining: 0, fast: false)
    }

    private func updateLowWater(remaining: Int64, fast: Bool) -> Bool {
        do throws(SystemError) {
            try lowWater.update(remaining: remaining, margin: transport.maximumHeldInput, fast: fast, on: transport.socket)
            return true
        } catch {
            transportFailed(.system(error), whileReading: true)
            return false
        }
    }

    func cancelDirectChunkTimer() {
        if let directChunkTimer { loop.cancelTimer(directChunkTimer) }
        directChunkTimer = nil
    }
}
