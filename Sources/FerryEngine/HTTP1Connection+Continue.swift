import FerryIO

// `Expect: 100-continue` (RFC 9110 §10.1.1): the head goes out alone, and the body follows when
// the server answers `100 Continue`, or when it has said nothing for `continueTimeout` (servers
// that ignore the expectation). A final response first means the body is not wanted: it is
// never sent, and the connection is not reused (HTTP1ConnectionStateMachine's early-response
// rule), so a refused upload (401, 413) costs one round trip, not the upload.

extension HTTP1Connection {
    /// Starts the wait for `100 Continue`.
    func armContinueTimer(for exchange: Exchange) {
        cancelContinueTimer()
        continueTimer = loop.scheduleTimer(at: .now() + exchange.request.continueTimeout) { [weak self] in
            guard let self else { return }
            self.continueTimer = nil
            self.releaseHeldBody()
        }
    }

    /// Sends the held body: the server said continue, or the wait ran out.
    func releaseHeldBody() {
        cancelContinueTimer()
        guard !isClosed, exchange != nil, outbound.isHoldingBody else { return }
        outbound.releaseBody()
        flush()
    }

    func cancelContinueTimer() {
        if let continueTimer { loop.cancelTimer(continueTimer) }
        continueTimer = nil
    }
}
