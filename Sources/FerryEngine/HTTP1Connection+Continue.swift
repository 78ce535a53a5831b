import FerryIO

// Answers that come before the request's end.
//
// `Expect: 100-continue` (RFC 9110 §10.1.1): the head goes out alone, and the body follows when
// the server answers `100 Continue` (no other 1xx), or when it has said nothing for
// `continueTimeout` (servers that ignore the expectation). A final response first means the body
// is not wanted: it is never sent, however long the response takes or its consumer decides,
// and the connection is not reused, so a refused upload (401, 413) costs one round trip.
//
// A server may also answer and close before it has read a body it never asked to hold (an early
// 413, then a reset): writing fails, but the answer is still queued in the socket (RFC 9112
// §9.5). Writing stops and the answer is read; the send failure is the error only when no
// response comes.

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

    /// A final response came before `100 Continue`: the held body never goes.
    func withdrawHeldBody() {
        cancelContinueTimer()
        stopWritingRequest()
    }

    /// Writing the request failed with `error`: stop writing and read what the peer answered,
    /// a loop turn later (not from inside the write that failed).
    func readAnswerAfterSendFailure(_ error: SystemError, of exchange: Exchange) {
        sendFailure = error
        stopWritingRequest()
        // Nothing more will be written: a full socket's write interest would only fail again.
        setInterest(interest.subtracting(.write))
        let box = LoopBound(self)
        let exchangeBox = LoopBound(exchange)
        loop.execute {
            let connection = box.value
            guard connection.exchange === exchangeBox.value, !connection.isClosed else { return }
            connection.readable()
        }
    }

    /// No more of the request is written; the response decides the exchange.
    private func stopWritingRequest() {
        outbound.abandon()
        requestWritten = true
        run(machine.requestAbandoned())
    }

    func cancelContinueTimer() {
        if let continueTimer { loop.cancelTimer(continueTimer) }
        continueTimer = nil
    }
}
