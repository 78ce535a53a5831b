import FerryIO

// Bandwidth caps (curl's --limit-rate): an exchange may carry a download and an upload
// `BandwidthLimiter`. Each read takes at most what the download cap has, each write at most
// what the upload cap has for body bytes. When a cap is spent, the connection stops watching
// that direction of its socket and sets a timer on its loop for when the cap has a quantum
// again: the kernel's socket buffers fill and TCP's flow control slows the peer, as it does
// for a consumer that paused. No thread sleeps, and an uncapped exchange never gets here.

extension HTTP1Connection {
    /// The download cap is spent: reading stops until it has bytes again.
    func holdReading(for limiter: BandwidthLimiter) {
        guard readRateTimer == nil, !isClosed else { return }
        setInterest(interest.subtracting(.read))
        guard !isClosed else { return }
        readRateTimer = loop.scheduleTimer(at: .now() + limiter.delay()) { [weak self] in
            guard let self else { return }
            self.readRateTimer = nil
            self.watchReadingAgain(readNow: true)
        }
    }

    /// The upload cap is spent: the body waits until it has bytes again (ciphertext TLS
    /// already holds still goes out).
    func holdSending(for limiter: BandwidthLimiter) {
        guard writeRateTimer == nil, !isClosed else { return }
        watchWritingWhileTLSHoldsOutput()
        guard !isClosed else { return }
        writeRateTimer = loop.scheduleTimer(at: .now() + limiter.delay()) { [weak self] in
            guard let self else { return }
            self.writeRateTimer = nil
            self.flush()
        }
    }

    /// Ends both holds without resuming anything (the connection closes, or its exchange ended).
    func cancelRateTimers() {
        if let readRateTimer { loop.cancelTimer(readRateTimer) }
        if let writeRateTimer { loop.cancelTimer(writeRateTimer) }
        readRateTimer = nil
        writeRateTimer = nil
    }
}
