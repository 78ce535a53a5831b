import FerryIO

/// The life of one HTTP/1.1 connection, one exchange at a time.
///
/// Pure: `HTTP1Connection` reports what happened on the socket and in the parser, and performs
/// the returned action. The machine decides when an exchange is complete (both the request
/// sent and the response received, RFC 9112 §9.3), whether the connection may be reused, and
/// whether a failure may be retried on a fresh connection.
package struct HTTP1ConnectionStateMachine {
    /// What the owner must do.
    package enum Action: Equatable {
        /// Nothing yet.
        case none
        /// Write the request (head, then body).
        case sendRequest
        /// Stop writing the request body: the server answered before it was sent, and the
        /// connection will close after the response (RFC 9112 §9.3 leaves it unusable).
        case stopSendingBody
        /// The exchange is complete; keep the connection for another one if `reusable`.
        case succeedExchange(reusable: Bool)
        /// The exchange failed; the connection must close. `retryable`: nothing of the response
        /// arrived on a reused connection, so an idempotent request may run again elsewhere.
        case failExchange(EngineError, retryable: Bool)
        /// Close the connection (nothing is running on it).
        case close
    }

    /// Facts about a request that matter to completion and retry.
    package struct RequestTraits: Equatable, Sendable {
        /// The method is idempotent and the body can be sent again (none, memory or file).
        package var isRetryable: Bool
        /// Creates traits.
        package init(isRetryable: Bool) { self.isRetryable = isRetryable }
    }

    private enum RequestProgress: Equatable {
        // The request is still being written.
        case sending
        // Every byte of the request was written.
        case sent
        // Writing stopped early because the response already ended.
        case abandoned
    }

    private enum ResponseProgress: Equatable {
        // No byte of the response yet.
        case waiting
        // Some bytes arrived, but the head is not complete.
        case receivingHead
        // The head arrived; the body is streaming.
        case receivingBody(keepAlive: Bool)
        // The whole response arrived.
        case complete(keepAlive: Bool)
    }

    private enum State: Equatable {
        // Connected, no exchange running.
        case idle
        // One exchange is running.
        case exchanging(RequestProgress, ResponseProgress, RequestTraits)
        // Closed; every event is ignored.
        case closed
    }

    private var state: State = .idle
    /// Exchanges completed on this connection; a connection with one or more is "reused".
    package private(set) var completedExchanges = 0

    /// Creates a machine for a freshly connected socket.
    package init() {}

    /// `true` when the connection served an exchange before the current one.
    package var isReused: Bool { completedExchanges > 0 }

    /// `true` between exchanges.
    package var isIdle: Bool { state == .idle }

    // MARK: - Events

    /// A request starts on this connection.
    package mutating func exchangeStarted(_ traits: RequestTraits) -> Action {
        switch state {
        case .idle:
            state = .exchanging(.sending, .waiting, traits)
            return .sendRequest
        case .exchanging, .closed:
            // Our own bug: the pool only hands out idle connections.
            return .failExchange(EngineError(.internalInconsistency("exchange started on a busy connection")), retryable: true)
        }
    }

    /// The last byte of the request was written.
    package mutating func requestSent() -> Action {
        switch state {
        case .exchanging(.sending, let response, let traits):
            state = .exchanging(.sent, response, traits)
            if case .complete(let keepAlive) = response { return finish(reusable: keepAlive) }
            return .none
        case .idle, .exchanging, .closed:
            return .none
        }
    }

    /// Bytes of the response arrived before its head was complete.
    package mutating func responseBytesReceived() -> Action {
        switch state {
        case .exchanging(let request, .waiting, let traits):
            state = .exchanging(request, .receivingHead, traits)
            return .none
        case .idle:
            // RFC 9112 §9.3: bytes on an idle connection are an error; don't reuse it.
            state = .closed
            return .close
        case .exchanging, .closed:
            return .none
        }
    }

    /// The response head arrived.
    package mutating func responseHeadReceived(keepAlive: Bool) -> Action {
        switch state {
        case .exchanging(let request, .waiting, let traits), .exchanging(let request, .receivingHead, let traits):
            state = .exchanging(request, .receivingBody(keepAlive: keepAlive), traits)
            return .none
        case .idle, .exchanging, .closed:
            return .none
        }
    }

    /// The response ended (its last body byte, or trailers, arrived).
    /// - Parameter allowReuse: `false` when bytes followed the response: the peer is confused
    ///   and the connection must not carry another exchange.
    package mutating func responseEnded(allowReuse: Bool = true) -> Action {
        switch state {
        case .exchanging(let request, .receivingBody(let keepAlive), let traits):
            switch request {
            case .sent:
                return finish(reusable: keepAlive && allowReuse)
            case .sending:
                // The server answered before reading the whole body (e.g. an early 413):
                // the unsent rest would be taken as the next request, so close afterwards.
                state = .exchanging(.abandoned, .complete(keepAlive: false), traits)
                return .stopSendingBody
            case .abandoned:
                return finish(reusable: false)
            }
        case .idle, .exchanging, .closed:
            return .none
        }
    }

    /// The owner stopped writing the request before its end (a final response came before the
    /// `100 Continue` a held body waited for, or the send failed while the peer's answer may
    /// still be read): the response decides the exchange, and the connection closes after it.
    package mutating func requestAbandoned() -> Action {
        switch state {
        case .exchanging(.sending, let response, let traits):
            state = .exchanging(.abandoned, response, traits)
            return .none
        case .idle, .exchanging, .closed:
            return .none
        }
    }

    /// The owner stopped writing after ``Action/stopSendingBody``; the exchange is done.
    package mutating func bodySendingStopped() -> Action {
        switch state {
        case .exchanging(.abandoned, .complete, _):
            return finish(reusable: false)
        case .idle, .exchanging, .closed:
            return .none
        }
    }

    /// The exchange failed (I/O error, parse error, timeout, cancellation, decoding, …).
    /// - Parameter error: The cause.
    package mutating func exchangeFailed(_ error: EngineError) -> Action {
        switch state {
        case .exchanging(_, let response, let traits):
            state = .closed
            let nothingReceived = response == .waiting
            let retryable = nothingReceived && isReused && traits.isRetryable && Self.isConnectionLoss(error)
            return .failExchange(error, retryable: retryable)
        case .idle:
            state = .closed
            return .close
        case .closed:
            return .none
        }
    }

    /// The peer closed, or reset, the connection while no response was under way, or before
    /// any byte of it: the same as ``exchangeFailed(_:)`` but names an empty reply as such.
    package mutating func peerClosedBeforeResponse(_ cause: SystemErrorOrEOF) -> Action {
        switch state {
        case .exchanging(_, .waiting, _):
            switch cause {
            case .endOfFile: return exchangeFailed(EngineError(.emptyReply))
            case .error(let error): return exchangeFailed(EngineError(.receiveFailed(error, .awaitingResponse)))
            }
        case .idle:
            state = .closed
            return .close
        case .exchanging, .closed:
            return .none
        }
    }

    /// The owner closed the connection (shutdown, idle timeout).
    package mutating func closed() {
        state = .closed
    }

    // MARK: - Private

    private mutating func finish(reusable: Bool) -> Action {
        completedExchanges += 1
        state = reusable ? .idle : .closed
        return .succeedExchange(reusable: reusable)
    }

    // A reused connection the server closed just as we sent is the classic keep-alive race
    // (RFC 9112 §9.3.1): retrying is safe for idempotent requests.
    private static func isConnectionLoss(_ error: EngineError) -> Bool {
        switch error.kind {
        case .emptyReply, .sendFailed, .receiveFailed: return true
        case .cancelled, .invalidRequest, .hostNotFound, .connectFailed,
             .connectTimedOut, .requestTimedOut, .totalTimedOut, .parse, .partialBody, .decoding,
             .bodyTooLarge, .fileReadFailed, .fileWriteFailed, .requestBodyFailed, .loopThreadFailed, .internalInconsistency,
             .tlsHandshakeFailed, .serverTrustRejected, .tlsFailed, .proxyFailed:
            return false
        }
    }
}

/// How a connection ended from the peer's side: an orderly EOF or an error such as a reset.
package enum SystemErrorOrEOF: Equatable, Sendable {
    /// The peer closed its side (read returned 0).
    case endOfFile
    /// The socket reported an error.
    case error(SystemError)
}
