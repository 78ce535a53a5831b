#if canImport(Glibc)
import Glibc
#endif
import FerryIO
import FerryTLS
import FerryWire
import HTTPTypes

/// One HTTP/1.1 connection on one event loop: runs the actions of its
/// ``HTTP1ConnectionStateMachine``, drives the ``ResponseParser`` over a reused read buffer,
/// and writes requests with as few syscalls as possible (head and body in one `writev`).
/// Large bodies skip the read buffer: see `HTTP1Connection+DirectBody.swift`.
final class HTTP1Connection: IOHandler {
    /// Bytes read per `read` call; also the largest body slice handed to a consumer.
    static let readBufferSize = 256 * 1024

    let id: Int
    let loop: EventLoop
    let transport: Transport
    let remote: SocketAddress
    /// `remote`'s address as text, made once: every exchange's metrics name it.
    let remoteAddress: String
    /// What the TLS handshake established; nil for plain HTTP.
    let tlsFacts: TLSFacts?
    private unowned let pool: ConnectionPool
    /// Mapped, not malloc'd: see ``ConnectionBuffer`` (peak RSS under connection churn). Taken
    /// from the loop's spares and given back by `deinit`, when nothing can read it any more.
    private let readBufferMemory: ConnectionBuffer
    private let readBuffer: UnsafeMutableRawBufferPointer
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var outbound = OutboundQueue()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private(set) var interest: IOEvents = []
    private var progressTimer: TimerID?
    /// A byte of the current exchange's response arrived.
    private var responseStarted = false
    /// Every byte of the current request was handed to the transport (TLS may still be
    /// sending the last ciphertext), or writing it stopped early.
    var requestWritten = false
    /// Why writing the request failed, kept while what the peer sent before it stopped reading
    /// is read (HTTP1Connection+Continue.swift): it stands when no response comes.
    var sendFailure: SystemError?
    private var hungUpWhilePaused = false
    /// Fires when the server has not answered `Expect: 100-continue` in time: the held body
    /// goes out anyway (HTTP1Connection+Continue.swift).
    var continueTimer: TimerID?

    // Not private: the direct body reads (HTTP1Connection+DirectBody.swift) share this state;
    // what they only read is private(set).
    var machine = HTTP1ConnectionStateMachine()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var parser: ResponseParser
    private(set) var exchange: Exchange?
    private(set) var isClosed = false
    var lastActivity: Deadline = .now()
    private(set) var readingPaused = false
    /// Unparsed bytes of the read buffer kept while the consumer asked to pause.
    var pending: Range<Int>?
    /// Body bytes already parsed but not yet taken by the exchange (it paused mid-slice while
    /// decoding); offered again before ``pending`` on resume.
    private(set) var pendingBody: Range<Int>?
    /// Body bytes read straight into the consumer's next array, not yet handed over.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var directChunk = DirectBodyChunk()
    /// Fires when no chunk filled for ``directChunkFlushDelay``: lowers a raised ``lowWater``
    /// and hands a part-filled ``directChunk`` over.
    var directChunkTimer: TimerID?
    /// Raised while a large body arrives fast, so epoll wakes the loop less often.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var lowWater = ReceiveLowWaterMark()
    /// Set while a download cap holds reading back (HTTP1Connection+RateLimit.swift): fires
    /// when the cap has bytes again.
    var readRateTimer: TimerID?
    /// Set while an upload cap holds the body back: fires when the cap has bytes again.
    var writeRateTimer: TimerID?

    init(
        id: Int, loop: EventLoop, transport: Transport, remote: SocketAddress, tlsFacts: TLSFacts?,
        pool: ConnectionPool
    ) throws(SystemError) {
        self.id = id
        self.loop = loop
        self.transport = transport
        self.remote = remote
        self.remoteAddress = remote.ipAddress
        self.tlsFacts = tlsFacts
        self.pool = pool
        // Each exchange's own limits apply when it starts (`execute`).
        self.parser = ResponseParser(limits: .default)
        self.readBufferMemory = loop.takeBuffer(byteCount: Self.readBufferSize)
        self.readBuffer = readBufferMemory.bytes
        // Read interest stays on while idle, so a peer that closes a pooled connection is
        // noticed at once rather than when the next request is written into the void.
        try loop.register(fd: transport.fd, interest: .read, handler: self)
        interest = .read
    }

    deinit {
        loop.giveBack(readBufferMemory)
    }

    // MARK: - Pool interface

    /// `false` when a pooled connection turns out closed or holds unexpected bytes.
    var isReusable: Bool {
        guard !isClosed, machine.isIdle else { return false }
        return transport.isIdleAlive
    }

    /// Sends what TLS still holds of the handshake (its last flight, kept back to leave with
    /// the first request) when no request took it along: the first exchange did not start
    /// writing, or there was none. A full socket turns write interest on.
    func sendHandshakeRemainder() {
        guard !isClosed, transport.hasPendingOutput, !interest.contains(.write) else { return }
        _ = flushTransport()
    }

    /// Runs `exchange` on this (idle) connection.
    func execute(_ exchange: Exchange) {
        loop.preconditionInEventLoop()
        self.exchange = exchange
        responseStarted = false
        requestWritten = false
        sendFailure = nil
        exchange.attach(to: self)
        parser.enforce(exchange.request.parserLimits)
        parser.expectResponse(to: exchange.request.head.method)
        run(machine.exchangeStarted(.init(isRetryable: exchange.request.isRetryable)))
    }

    /// Fails the running exchange (cancellation, total timeout) and closes.
    func abort(_ error: EngineError) {
        run(machine.exchangeFailed(error))
    }

    /// Closes the socket; the pool has already forgotten this connection.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        machine.closed()
        cancelProgressTimer()
        cancelContinueTimer()
        cancelDirectChunkTimer()
        cancelRateTimers()
        directChunk = DirectBodyChunk()
        loop.deregister(fd: transport.fd, closing: true)
        transport.close()
    }

    /// Continues after the consumer drained what it had.
    func resumeReading() {
        guard readingPaused, !isClosed else { return }
        readingPaused = false
        lastActivity = .now()
        if let body = pendingBody, let exchange {
            pendingBody = nil
            guard deliverBody(body, of: exchange) else { return }
        }
        if let range = pending {
            pending = nil
            process(range)
        }
        watchReadingAgain(readNow: false)
    }

    /// Watches the socket for input again, unless the consumer or a download cap still holds
    /// reading back. With `readNow`, reads at once (a cap's wait ended: bytes are most likely
    /// queued); in any case when TLS holds decrypted input, which epoll cannot announce.
    func watchReadingAgain(readNow: Bool) {
        guard !readingPaused, readRateTimer == nil, !isClosed else { return }
        if hungUpWhilePaused {
            hungUpWhilePaused = false
            interest.insert(.read)
            do throws(SystemError) {
                try loop.register(fd: transport.fd, interest: interest, handler: self)
            } catch {
                return transportFailed(.system(error), whileReading: true)
            }
            // The peer is gone or going: what it sent is read now, not a loop turn later.
            if readNow { readable() }
        } else {
            setInterest(interest.union(.read))
            if readNow || transport.hasBufferedInput { readable() }
        }
    }

    // MARK: - IOHandler

    func readable() {
        // TLS can hold more plaintext than one read takes, which epoll cannot announce:
        // keep reading while it does, or while a head window came back full, and nobody paused.
        var windowFilled = false
        repeat {
            guard !isClosed, !readingPaused, readRateTimer == nil else { return }
            // Under a download cap, a read takes at most what the cap has now.
            let limiter = exchange?.request.bandwidth?.download
            var allowance = Int.max
            if let limiter {
                allowance = limiter.available()
                guard allowance > 0 else { return holdReading(for: limiter) }
            }
            if let exchange, let size = directBodyReadSize(for: exchange) {
                // TLS may still hold part of a record (epoll cannot see it): go on only while
                // bytes keep coming, never spin on an empty socket.
                guard readBodyDirectly(min(size, allowance), for: exchange) else { return }
                windowFilled = false
                continue
            }
            var window = readWindow
            if window.count > allowance { window = UnsafeMutableRawBufferPointer(rebasing: window[..<allowance]) }
            let result: IOResult<Int>
            do throws(TransportFailure) {
                result = try transport.read(into: window)
            } catch {
                return transportFailed(error, whileReading: true)
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                return endOfInput()
            case .processed(let count):
                lastActivity = .now()
                limiter?.consume(count)
                process(0..<count)
                // A head window the bytes filled: more are likely queued behind them.
                windowFilled = count == window.count && window.count < readBuffer.count
            }
        } while windowFilled || transport.hasBufferedInput
    }

    /// What a read into the read buffer may fill: all of it, except while the head of a
    /// response is awaited for a consumer that takes owned arrays. Then one TLS record's worth
    /// (`directBodyReadMinimum`): the head and what follows it in the same record or segment.
    /// Once the head is parsed, the body goes straight into the consumer's arrays instead of
    /// filling the read buffer behind the head, to be copied out of it (a 256 KiB copy, and
    /// the buffer's pages touched, on every large download).
    private var readWindow: UnsafeMutableRawBufferPointer {
        guard parser.isReadingHead, let exchange, exchange.acceptsOwnedBody else { return readBuffer }
        return UnsafeMutableRawBufferPointer(rebasing: readBuffer[..<Self.directBodyReadMinimum])
    }

    func writable() {
        guard !isClosed else { return }
        guard flushTransport() else { return }
        guard exchange != nil, !requestWritten else { return setInterest(interest.subtracting(.write)) }
        flush()
    }

    func hangup() {
        guard !isClosed else { return }
        if readingPaused || readRateTimer != nil {
            // EPOLLHUP cannot be masked: while the consumer (or a cap) holds reading back,
            // leave epoll entirely (or the loop would spin) and look again when reading resumes.
            loop.deregister(fd: transport.fd)
            hungUpWhilePaused = true
            return
        }
        // Read to learn whether this is EOF (with data perhaps still queued) or an error.
        readable()
    }

    // MARK: - Actions

    func run(_ action: HTTP1ConnectionStateMachine.Action) {
        switch action {
        case .none:
            break
        case .sendRequest:
            guard let exchange else { return }
            outbound.start(head: exchange.encodedHead, exchange: exchange, holdingBody: exchange.awaitsContinue)
            if exchange.awaitsContinue { armContinueTimer(for: exchange) }
            armProgressTimer()
            exchange.willSendHead(facts: ConnectionFacts(
                remoteAddress: remoteAddress, remotePort: Int(remote.port), isReused: machine.isReused, tls: tlsFacts,
                isProxied: exchange.request.key.isProxied))
            flush()
        case .stopSendingBody:
            outbound.abandon()
            run(machine.bodySendingStopped())
        case .succeedExchange(let reusable):
            let finished = exchange
            exchange = nil
            cancelProgressTimer()
            cancelContinueTimer()
            // A cap held the next read back, but the body had already come (a gathered chunk
            // handed over by its timer): the idle connection watches its socket again.
            if readRateTimer != nil || writeRateTimer != nil {
                cancelRateTimers()
                watchReadingAgain(readNow: false)
            }
            // The next response's head must wake the loop, however few its bytes (a connection
            // that closes needs no lowering, and one that cannot be lowered is not reused).
            if !reusable || (try? lowWater.lower(on: transport.socket)) == nil { close() }
            // The connection goes back to the pool before the caller hears of the success, so a
            // request made right after an `await` returns always finds it idle.
            pool.exchangeFinished(on: id, reusable: reusable && !isClosed)
            finished?.succeeded()
        case .failExchange(let error, let retryable):
            let failed = exchange
            exchange = nil
            close()
            failed?.failed(error, retryable: retryable)
            pool.exchangeFinished(on: id, reusable: false)
        case .close:
            close()
            pool.connectionClosed(id)
        }
    }

    // MARK: - Reading

    func process(_ range: Range<Int>) {
        guard let exchange else {
            // RFC 9112 §9.3: a response nobody asked for; the connection is unusable.
            return run(machine.responseBytesReceived())
        }
        let input = UnsafeRawBufferPointer(rebasing: readBuffer[range])
        var index = 0
        if !responseStarted {
            responseStarted = true
            exchange.responseBytesArrived()
            run(machine.responseBytesReceived())
        }
        while !isClosed, self.exchange === exchange {
            let event: ResponseParser.Event
            do throws(HTTPParseError) {
                event = try parser.parse(input, from: &index)
            } catch {
                return run(machine.exchangeFailed(EngineError(.parse(error))))
            }
            // RFC 9110 §10.1.1: a `100 Continue` is the go-ahead for a held body.
            if parser.receivedContinue, outbound.isHoldingBody { releaseHeldBody() }
            switch event {
            case .needMoreData:
                return
            case .head(let head):
                // A final answer before `100 Continue`: the held body is not wanted.
                if outbound.isHoldingBody { withdrawHeldBody() }
                let demand: BodyDemand
                do throws(EngineError) {
                    demand = try exchange.receivedHead(head, headBytes: parser.bytesConsumedInResponse)
                } catch {
                    return run(machine.exchangeFailed(error))
                }
                run(machine.responseHeadReceived(keepAlive: head.keepAlive))
                if case .pause = demand, !isClosed, self.exchange === exchange {
                    // The consumer decides about the response before any body byte: the rest of
                    // this read waits (kept even when empty: the parser may owe the message's end).
                    pauseReading()
                    pending = (range.lowerBound + index)..<range.upperBound
                    return
                }
            case .body(let bodyRange):
                let absolute = (range.lowerBound + bodyRange.lowerBound)..<(range.lowerBound + bodyRange.upperBound)
                guard deliverBody(absolute, of: exchange) else {
                    // Kept even when empty: the parser may still owe the end of the message,
                    // which it reports on the next parse call (after the consumer resumes).
                    if !isClosed { pending = (range.lowerBound + index)..<range.upperBound }
                    return
                }
            case .end(let trailers):
                do throws(EngineError) {
                    try exchange.responseEnded(trailers: trailers)
                } catch {
                    return run(machine.exchangeFailed(error))
                }
                // Bytes after the end of the response: the server is confused, don't reuse. (A
                // body read directly ends with no input: TLS may hold what came after it.)
                let strayBytes = index < input.count || (input.isEmpty && transport.hasBufferedInput)
                run(machine.responseEnded(allowReuse: !strayBytes))
                return
            }
        }
    }

    /// The consumer has enough: reading stops until it resumes. The consumer now sets the
    /// pace, not the peer, so a raised mark goes down (reading resumes on any byte).
    func pauseReading() {
        readingPaused = true
        setInterest(interest.subtracting(.read))
        _ = lowerLowWater()
    }

    /// Hands body bytes (a range of the read buffer) to the exchange.
    /// - Returns: `false` when the exchange failed or the consumer paused; on a pause the bytes
    ///   it did not take are kept in ``pendingBody`` and offered again on resume.
    private func deliverBody(_ range: Range<Int>, of exchange: Exchange) -> Bool {
        let result: (demand: BodyDemand, consumed: Int)
        do throws(EngineError) {
            result = try exchange.receivedBody(UnsafeRawBufferPointer(rebasing: readBuffer[range]))
        } catch {
            run(machine.exchangeFailed(error))
            return false
        }
        guard case .pause = result.demand else { return true }
        pauseReading()
        if result.consumed < range.count { pendingBody = (range.lowerBound + result.consumed)..<range.upperBound }
        return false
    }

    func endOfInput() {
        guard exchange != nil else { return run(machine.peerClosedBeforeResponse(.endOfFile)) }
        if parser.bytesConsumedInResponse == 0 {
            return noResponse(.endOfFile)
        }
        let event: ResponseParser.Event
        do throws(HTTPParseError) {
            event = try parser.inputEnded()
        } catch {
            if error.kind == .incompleteBody, let exchange {
                let progress = exchange.bodyProgress
                return run(machine.exchangeFailed(EngineError(.partialBody(received: progress.received, expected: progress.expected))))
            }
            return run(machine.exchangeFailed(EngineError(.parse(error))))
        }
        if case .end(let trailers) = event, let exchange {
            do throws(EngineError) {
                try exchange.responseEnded(trailers: trailers)
            } catch {
                return run(machine.exchangeFailed(error))
            }
            run(machine.responseEnded(allowReuse: false))
        }
    }

    func transportFailed(_ failure: TransportFailure, whileReading: Bool) {
        switch failure {
        case .tls(let error):
            // A TLS failure is never the keep-alive race a retry could cure.
            let key = exchange?.request.key
            run(machine.exchangeFailed(EngineError(.tlsFailed(
                host: key?.host ?? remoteAddress, port: key?.port ?? Int(remote.port), error,
                exchange?.phase ?? .awaitingResponse))))
        case .system(let error):
            guard let exchange else { return run(machine.exchangeFailed(EngineError(.receiveFailed(error, .awaitingResponse)))) }
            if whileReading {
                if !responseStarted {
                    return noResponse(.error(error))
                }
                return run(machine.exchangeFailed(EngineError(.receiveFailed(error, exchange.phase))))
            }
            // Only a peer that closed or reset may have answered first; any other failure (a
            // full kernel, epoll refusing a change) is the error now.
            guard sendFailure == nil, error.errno == EPIPE || error.errno == ECONNRESET else {
                return run(machine.exchangeFailed(EngineError(.sendFailed(error))))
            }
            readAnswerAfterSendFailure(error, of: exchange)
        }
    }

    /// The peer is gone before any byte of a response: an empty reply or a reset, unless
    /// writing the request had failed first, which then names the cause.
    private func noResponse(_ cause: SystemErrorOrEOF) {
        if let sendFailure { return run(machine.exchangeFailed(EngineError(.sendFailed(sendFailure)))) }
        run(machine.peerClosedBeforeResponse(cause))
    }

    /// Sends ciphertext a full socket left behind. `false` when some is still waiting (write
    /// interest is on) or the transport failed.
    private func flushTransport() -> Bool {
        do throws(TransportFailure) {
            if try transport.flush() { return true }
            setInterest(interest.union(.write))
            return false
        } catch {
            transportFailed(error, whileReading: false)
            return false
        }
    }

    // MARK: - Writing

    func flush() {
        guard let exchange, !requestWritten else { return }
        // An upload cap holds the body back: only ciphertext TLS still holds goes out.
        guard writeRateTimer == nil else {
            return watchWritingWhileTLSHoldsOutput()
        }
        let limiter = exchange.request.bandwidth?.upload
        while !isClosed, self.exchange === exchange {
            switch outbound.step(transport: transport, exchange: exchange, bodyAllowance: limiter?.available() ?? .max) {
            case .wrote(let bodyBytes):
                lastActivity = .now()
                if bodyBytes > 0 {
                    limiter?.consume(bodyBytes)
                    exchange.sentBody(bytes: bodyBytes)
                }
            case .blocked:
                return setInterest(interest.union(.write))
            case .rateLimited:
                guard let limiter else { return }
                return holdSending(for: limiter)
            case .waitingForSource(let needsRequest):
                // TLS may still hold ciphertext of the last chunk: keep writing it out, or a
                // producer that waits for the server would wait for ever.
                watchWritingWhileTLSHoldsOutput()
                if needsRequest, case .stream(let source, _) = exchange.request.body {
                    let loop = self.loop
                    let box = LoopBound(self)
                    let exchangeBox = LoopBound(exchange)
                    source.nextChunk { result in
                        loop.execute { box.value.bodyChunkArrived(result, for: exchangeBox.value) }
                    }
                }
                return
            case .finished:
                // TLS may still hold ciphertext of the request's end: keep writing it out.
                watchWritingWhileTLSHoldsOutput()
                requestWritten = true
                exchange.requestSent()
                return run(machine.requestSent())
            case .failed(let error):
                return run(machine.exchangeFailed(error))
            case .transportFailed(let failure):
                return transportFailed(failure, whileReading: false)
            }
        }
    }

    /// A streamed body chunk arrived (on this loop).
    func bodyChunkArrived(_ result: Result<[UInt8]?, EngineError>, for exchange: Exchange) {
        guard self.exchange === exchange, !isClosed else { return }
        outbound.chunkArrived(result)
        flush()
    }

    /// Keeps write interest on only while TLS holds ciphertext to send (the request's end, or
    /// a body's last record): nothing else is waiting to be written.
    func watchWritingWhileTLSHoldsOutput() {
        setInterest(transport.hasPendingOutput ? interest.union(.write) : interest.subtracting(.write))
    }

    func setInterest(_ new: IOEvents) {
        guard new != interest, !isClosed else { return }
        interest = new
        // Out of epoll after a hang-up while reading was held: what is wanted is registered
        // when reading resumes.
        guard !hungUpWhilePaused else { return }
        do throws(SystemError) {
            try loop.modify(fd: transport.fd, interest: new)
        } catch {
            transportFailed(.system(error), whileReading: false)
        }
    }

    // MARK: - Request timeout (no progress)

    private func armProgressTimer() {
        guard let exchange else { return }
        lastActivity = .now()
        cancelProgressTimer()
        progressTimer = loop.scheduleTimer(at: lastActivity + exchange.request.requestTimeout) { [weak self] in
            self?.progressTimerFired()
        }
    }

    // Re-armed lazily: progress only moves `lastActivity`, so the hot path never touches the
    // timer heap; the timer checks on firing whether the exchange really made no progress.
    private func progressTimerFired() {
        progressTimer = nil
        guard let exchange, !isClosed else { return }
        let deadline = lastActivity + exchange.request.requestTimeout
        // Waiting for the consumer or for a cap is not the peer's silence.
        let held = readingPaused || readRateTimer != nil || writeRateTimer != nil
        if held || deadline > .now() {
            if held { lastActivity = .now() }
            progressTimer = loop.scheduleTimer(at: max(deadline, lastActivity + exchange.request.requestTimeout)) { [weak self] in
                self?.progressTimerFired()
            }
            return
        }
        run(machine.exchangeFailed(EngineError(.requestTimedOut(exchange.phase))))
    }

    private func cancelProgressTimer() {
        if let progressTimer { loop.cancelTimer(progressTimer) }
        progressTimer = nil
    }
}
