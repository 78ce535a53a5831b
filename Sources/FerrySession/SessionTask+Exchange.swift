import FerryBase
import Dispatch
import FerryEngine
import FerryIO
import FerryWire
import FoundationEssentials
import HTTPTypes
import Synchronization

// The task as the engine's delegate for its exchanges. Callbacks arrive on the exchange's loop
// thread, in order; the caller's code never runs there: delegate methods go to the session's
// delegate queue, and async calls are resumed through their continuations.

extension SessionTask: ExchangeDelegate {
    package func exchangeDidSendHead(_ head: RequestHead, addedExpectation: Bool, connection: ConnectionFacts) {
        engineSide.sentEnginesExpectation = addedExpectation
        guard let delegate = engineSide.delegate else { return }
        let sent = HTTPRequest(method: head.method, scheme: nil, authority: nil, path: head.target, headerFields: head.fieldsAsSent)
        var info = ConnectionInfo(
            remoteAddress: connection.remoteAddress, remotePort: connection.remotePort, isReused: connection.isReused,
            tlsProtocolVersion: connection.tls?.protocolVersion, tlsCipherSuite: connection.tls?.cipherSuite,
            tlsApplicationProtocol: connection.tls?.applicationProtocol, isTLSSessionResumed: connection.tls?.isResumed ?? false)
        info.isProxyConnection = connection.isProxied
        toDelegate { [self, info] in
            delegate.session(session, task: self, didSendRequestHead: sent, over: info)
        }
    }

    package func exchangeDidSendBody(bytes: Int64, total: Int64, expected: Int64?) {
        if let successor = engineSide.successor { return successor.exchangeDidSendBody(bytes: bytes, total: total, expected: expected) }
        let uploads = kind == .upload
        let sentSoFar = core.withLock { core -> Int64 in
            // The running exchange's count: a body sent again (after a 307, or to answer a
            // 401) starts over, so the count never passes the body's length.
            core.counts.bytesSent = total
            core.counts.bytesExpectedToSend = expected
            core.publishProgress(uploads: uploads)
            return core.counts.bytesSent
        }
        guard let delegate = engineSide.delegate, engineSide.selective?.wantsSendProgress != false else { return }
        toDelegate { [self] in
            delegate.session(session, task: self, didSendBodyData: bytes, totalBytesSent: sentSoFar, totalBytesExpectedToSend: expected)
        }
    }

    package func exchangeDidReceiveHead(_ head: ResponseHead) -> BodyDemand {
        // A suspended task hears of no response: the head waits, and reading with it.
        guard core.withLock({ $0.machine.headArrived() }) else {
            engineSide.heldHead = head
            // The exchange's metrics name its status even if it fails while held.
            engineSide.exchangeStatus = head.status.code
            return .pause
        }
        // The URL alone: the request is copied only for a rule below that needs it.
        let response = NetworkResponse(
            url: runningRequestURL, status: head.status, headerFields: head.headerFields,
            httpVersion: "HTTP/\(head.version.major).\(head.version.minor)")
        let status = head.status.code
        engineSide.exchangeStatus = status
        // Every response's cookies count, a redirect's and a challenge's too.
        if let cookies = Session.setCookieValues(in: head.headerFields) { session.storeCookies(cookies, for: runningRequest) }
        if engineSide.authentication.awaitsVerdict { authenticationAnswered(status: status, for: runningRequest) }
        if RedirectPolicy.isRedirect(status), let demand = handleRedirect(head, response: response, request: runningRequest) {
            return demand
        }
        if status == 401, let demand = handleChallenge(head, response: response, request: runningRequest) {
            return demand
        }
        if status == 407, let proxy = forwardingProxy(of: runningRequest),
           let demand = handleChallenge(head, response: response, request: runningRequest, proxy: proxy) {
            return demand
        }
        if status == 417, engineSide.sentEnginesExpectation, let demand = retryWithoutExpectation(runningRequest, response: response) {
            return demand
        }
        if let demand = handleContinuation(response) { return demand }
        switch deliverHead(response) {
        case .more: return .more
        case .pause: return .pause
        }
    }

    /// The task was resumed with a response head held: it is handled now, as if it had just
    /// arrived (it is held again if the task was suspended once more meanwhile).
    func deliverHeldHead() {
        // A task cancelled meanwhile ends with its exchange; the head is nobody's.
        guard case .running = core.withLock({ $0.machine.state }), let head = engineSide.heldHead else { return }
        engineSide.heldHead = nil
        switch exchangeDidReceiveHead(head) {
        case .more: run(core.withLock { $0.machine.responseAllowed() })
        case .pause: break
        // A refused continuation: the engine fails the exchange, and the decided failure stands.
        case .stop(let error): core.withLock { $0.handle }?.stop(error)
        }
    }

    /// The response head is the task's: tell the delegate, let a data delegate decide, wake a
    /// call that waits for the head. Returns whether the body may be read now.
    func deliverHead(_ response: NetworkResponse) -> TaskStateMachine.Demand {
        let decider = engineSide.responseDecider(for: self)
        typealias Waiter = CheckedContinuation<Result<TaskResult, NetworkError>, Never>
        let (waiter, handle, demand) = core.withLock { core -> (Waiter?, ExchangeHandle?, TaskStateMachine.Demand) in
            core.response = response
            let demand = core.machine.headReceived(needsDecision: decider != nil)
            guard case .waiter(let continuation, atHead: true) = core.completion else { return (nil, nil, demand) }
            core.completion = .none
            return (continuation, core.handle, demand)
        }
        if let delegate = engineSide.delegate {
            toDelegate { [self] in delegate.session(session, task: self, didReceive: response) }
        }
        if let (dataDelegate, dataTask) = decider {
            toDelegate { [self] in
                dataDelegate.session(session, dataTask: dataTask, didReceive: response) { [self] disposition in
                    switch disposition {
                    case .allow: run(core.withLock { $0.machine.responseAllowed() })
                    case .cancel: cancel()
                    case .becomeDownload: becomeDownload(telling: dataDelegate)
                    }
                }
            }
        }
        if let waiter {
            // Woken once the connection has handled all this read brought: a small body and
            // its end usually came with the head, and the caller then finds them waiting
            // instead of being woken once more for them. (No handle yet, in a rare race with
            // the thread that started the exchange, or no loop any more: woken now.)
            let result = TaskResult(response: response)
            if handle?.onLoop({ waiter.resume(returning: .success(result)) }) != true {
                waiter.resume(returning: .success(result))
            }
        }
        return demand
    }

    // A data task that became a download hands the rest of its exchange to the download task.

    package func exchangeDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyDemand {
        if let successor = engineSide.successor { return successor.exchangeDidReceiveBody(bytes) }
        // The body of a response the task answers itself (a redirect, a challenge) is dropped.
        if engineSide.followUp != nil { return .more }
        return demand(after: engineSide.deliver(bytes, of: self), count: bytes.count)
    }

    package var prefersOwnedBodyChunks: Bool {
        engineSide.successor?.prefersOwnedBodyChunks ?? (engineSide.followUp == nil && engineSide.prefersOwnedBodyChunks)
    }

    package func exchangeDidReceiveBody(owned chunk: consuming [UInt8]) -> BodyDemand {
        if let successor = engineSide.successor { return successor.exchangeDidReceiveBody(owned: chunk) }
        if engineSide.followUp != nil { return .more }
        let count = chunk.count
        return demand(after: engineSide.deliver(owned: chunk, of: self), count: count)
    }

    package func reusableBodyChunk(minimumCapacity: Int) -> [UInt8]? {
        if let successor = engineSide.successor { return successor.reusableBodyChunk(minimumCapacity: minimumCapacity) }
        return engineSide.reusableBodyChunk(minimumCapacity: minimumCapacity)
    }

    package func exchangeDidFinish(trailers: HTTPFields, metrics: ExchangeMetrics) {
        if let successor = engineSide.successor { return successor.exchangeDidFinish(trailers: trailers, metrics: metrics) }
        if let step = engineSide.followUp { return followUpExchangeEnded(step, metrics: metrics) }
        completeWithOutput(metrics: recordMetrics(metrics))
    }

    /// The exchange that carried the task's response ended: the task succeeds with what its
    /// output holds.
    func completeWithOutput(metrics: TaskMetrics) {
        guard let response = core.withLock({ $0.response }) else {
            engineSide.endPartialOutput()
            let error = EngineError(.internalInconsistency("finished without a response head"))
            return exchangeEnded(.failure(NetworkError(error, url: originalRequest.url)), metrics: metrics)
        }
        exchangeEnded(engineSide.finishedResult(response: response, url: originalRequest.url), metrics: metrics)
    }

    package func exchangeDidFail(_ error: EngineError, metrics: ExchangeMetrics) {
        if let successor = engineSide.successor { return successor.exchangeDidFail(error, metrics: metrics) }
        // A head held while suspended has no end: its exchange ends only so.
        engineSide.heldHead = nil
        let decided = engineSide.followUp
        engineSide.followUp = nil
        // A proxy that refused a tunnel: its 407 may be answered; its status goes with the error.
        let refusal = proxyRefusal(in: error)
        if let refusal, answersTunnelChallenge(refusal, error: error, metrics: metrics) { return }
        let response = refusal?.response ?? core.withLock { $0.response }
        var failure = NetworkError(error, url: originalRequest.url).attaching(response: response)
        // The task's outcome was decided before the body being dropped broke off: it stands (a
        // cancel still cancels a failure, keeping the resume data it decided on).
        switch decided {
        case .finish:
            return followUpExchangeEnded(.finish, metrics: metrics)
        case .fail(let decidedFailure):
            if error.kind != .cancelled { return followUpExchangeEnded(.fail(decidedFailure), metrics: metrics) }
            failure = failure.attaching(resumeData: decidedFailure.downloadTaskResumeData)
        case .send(let next, let isRedirect) where Self.onlyTheDroppedBodyFailed(error):
            // A redirect or a challenge's answer was decided at the head: a 3xx or 401 body the
            // server ended before its Content-Length, or that does not decode, concerns only the
            // body being dropped, and the next request goes, as curl's. A reset, broken or cut
            // chunking, a timeout or a cancel still end the task (curl: 56, 18, 28).
            return followUpExchangeEnded(.send(next, isRedirect: isRedirect), metrics: metrics)
        case .asking, .send, nil:
            break
        }
        exchangeEnded(.failure(failure), metrics: recordMetrics(metrics))
    }

    // MARK: - Helpers

    /// Whether `error` is only about the body of a response the task drops: the server
    /// closed before the end its Content-Length announced, or the body does not decode. (curl
    /// 7.88 follows then, but not after a chunked body the close cut: 18.)
    private static func onlyTheDroppedBodyFailed(_ error: EngineError) -> Bool {
        switch error.kind {
        case .partialBody(_, let expected): expected != nil
        case .decoding: true
        default: false
        }
    }

    /// The request the running exchange sent: the original one, without taking the lock,
    /// unless a follow-up replaced it. On the exchange's loop.
    var runningRequest: NetworkRequest { engineSide.requestReplaced ? currentRequest : originalRequest }

    /// ``runningRequest``'s URL, without copying the request.
    var runningRequestURL: URL { engineSide.requestReplaced ? currentRequest.url : originalRequest.url }

    /// Counts delivered bytes and asks the state machine whether reading goes on.
    private func demand(after delivery: Result<Bool, EngineError>, count: Int) -> BodyDemand {
        let wantsMore: Bool
        switch delivery {
        case .success(let more): wantsMore = more
        case .failure(let error): return .stop(error)
        }
        let uploads = kind == .upload
        let demand = core.withLock { core -> TaskStateMachine.Demand in
            core.counts.bytesReceived += Int64(count)
            core.publishProgress(uploads: uploads)
            let stillFull = !wantsMore && engineSide.outputStillFull(bytesQueuedForDelegate: core.bytesQueuedForDelegate)
            return core.machine.bodyDelivered(outputWantsMore: !stillFull)
        }
        if let observer = engineSide.downloadObserver { reportWrite(to: observer.delegate, of: observer.task) }
        switch demand {
        case .more: return .more
        case .pause: return .pause
        }
    }

    /// Queues a call to the delegate that carries `byteCount` body bytes. Returns whether the
    /// output (the delegate queue's backlog of body bytes) has room for more: above
    /// ``ResponseBodyBuffer/highWaterMark`` unconsumed bytes (each call counted at least
    /// ``ResponseBodyBuffer/minimumChunkCharge``) the engine pauses, and it resumes
    /// once the delegate has taken all but half of it, so a slow delegate bounds memory.
    func queueForDelegate(byteCount: Int, _ call: @escaping @Sendable (Session) -> Void) -> Bool {
        // Each call counts at least what queueing it costs, so tiny pieces stay bounded too.
        let charge = ResponseBodyBuffer.charge(forChunkOf: byteCount)
        let queued = core.withLock { core -> Int in
            core.bytesQueuedForDelegate += charge
            return core.bytesQueuedForDelegate
        }
        toDelegate { [self] in
            call(session)
            let action = core.withLock { core -> TaskStateMachine.Action in
                core.bytesQueuedForDelegate -= charge
                guard core.bytesQueuedForDelegate < ResponseBodyBuffer.highWaterMark / 2 else { return .none }
                return core.machine.outputDrained()
            }
            run(action)
        }
        return queued < ResponseBodyBuffer.highWaterMark
    }

    /// Tells a download delegate what was written, coalesced: one call waits on the delegate
    /// queue at a time and reports the totals when it runs (the bytes just written are counted
    /// already).
    func reportWrite(to delegate: any SessionDownloadDelegate, of task: DownloadTask) {
        let schedule = core.withLock { core -> Bool in
            guard !core.writeReportPending else { return false }
            core.writeReportPending = true
            return true
        }
        guard schedule else { return }
        toDelegate { [self] in
            let (written, total, expected) = core.withLock { core -> (Int64, Int64, Int64?) in
                core.writeReportPending = false
                let written = core.counts.bytesReceived - core.bytesReportedWritten
                core.bytesReportedWritten = core.counts.bytesReceived
                return (written, core.counts.bytesReceived, core.bytesExpectedToReceive())
            }
            guard written > 0 else { return }
            delegate.session(session, downloadTask: task, didWriteData: written, totalBytesWritten: total,
                             totalBytesExpectedToWrite: expected)
        }
    }

    /// The stream's consumer drained its buffer.
    func outputDrained() {
        run(core.withLock { $0.machine.outputDrained() })
    }

    /// Adds an exchange's metrics to the task's (one transaction per exchange, redirects
    /// included) and returns the task's so far, timed from its first exchange.
    func recordMetrics(_ metrics: ExchangeMetrics) -> TaskMetrics {
        let first = engineSide.firstExchangeStart ?? metrics.start
        if engineSide.firstExchangeStart == nil { engineSide.firstExchangeStart = first }
        let offset = metrics.start - first
        let fetchStart = offset == .zero ? engineSide.fetchStart
            : engineSide.fetchStart.addingTimeInterval(offset / .seconds(1))
        let url = runningRequestURL
        let status = engineSide.exchangeStatus
        engineSide.exchangeStatus = 0
        engineSide.transactions.append(TransactionMetrics(metrics, fetchStart: fetchStart, url: url, statusCode: status == 0 ? nil : status))
        let duration = (metrics.end ?? .now()) - first
        return TaskMetrics(transactionMetrics: engineSide.transactions, redirectCount: engineSide.redirectsFollowed,
                           taskDuration: duration)
    }
}

extension TransactionMetrics {
    /// The public metrics of one exchange.
    init(_ metrics: ExchangeMetrics, fetchStart: Date, url: URL, statusCode: Int?) {
        self.init(fetchStart: fetchStart)
        self.url = url
        self.statusCode = statusCode
        let offset = { (deadline: Deadline?) in deadline.map { $0 - metrics.start } }
        domainLookupEnd = offset(metrics.domainLookupEnd)
        connectEnd = offset(metrics.connectEnd)
        secureConnectionEnd = offset(metrics.secureConnectionEnd)
        negotiatedTLSProtocolVersion = metrics.tls?.protocolVersion
        negotiatedTLSCipherSuite = metrics.tls?.cipherSuite
        isTLSSessionResumed = metrics.tls?.isResumed ?? false
        serverCertificateVerifyResult = metrics.tls?.verifyResult
        requestStart = offset(metrics.requestStart)
        responseStart = offset(metrics.responseStart)
        responseEnd = offset(metrics.end)
        isReusedConnection = metrics.isReusedConnection
        isProxyConnection = metrics.isProxyConnection
        connectionsOpened = metrics.connectionsOpened
        remoteAddress = metrics.remoteAddress
        remotePort = metrics.remotePort
        requestHeaderBytesSent = metrics.requestHeadBytes
        requestBodyBytesSent = metrics.requestBodyBytes
        responseHeaderBytesReceived = metrics.responseHeadBytes
        responseBodyBytesReceived = metrics.responseBodyBytes
        responseBodyBytesDecoded = metrics.responseBodyBytesDelivered
    }
}
