import FerryIO
import FerryTLS

/// Judges a server's certificate chain after the handshake, off the event loop. `done` is
/// called exactly once, on any thread: `nil` accepts, an error refuses.
package typealias ServerTrustCheck = @Sendable (ServerTrust, _ port: Int, _ done: @escaping @Sendable (ServerTrustError?) -> Void) -> Void

/// Picks the client certificate for a server that asked for one (when the TLS configuration
/// has none), off the event loop. `answer` is called exactly once, on any thread.
package typealias ClientIdentityProvider = @Sendable (_ host: String, _ port: Int, _ answer: @escaping @Sendable (ClientIdentityAnswer) -> Void) -> Void

/// What a ``ClientIdentityProvider`` decided.
package enum ClientIdentityAnswer: Sendable {
    /// Send this certificate (with its key and chain).
    case identity(ClientIdentity)
    /// Send none; the server decides whether it goes on.
    case none
    /// Give up the connection: the request fails as cancelled.
    case cancel
}

/// What a TLS handshake established, for metrics and `-v`.
package struct TLSFacts: Sendable, Equatable {
    /// `TLSv1.3`.
    package var protocolVersion: String
    /// `TLS_AES_128_GCM_SHA256`.
    package var cipherSuite: String
    /// The ALPN protocol the server chose, if any.
    package var applicationProtocol: String?
    /// An earlier session was resumed (no certificate exchange).
    package var isResumed: Bool
    /// OpenSSL's verification result for the chain (`X509_V_OK`, 0, when the default
    /// evaluation passed): what curl prints as `%{ssl_verify_result}`.
    package var verifyResult: Int
}

/// Secures a connected socket: runs the TLS handshake, then has the server's chain judged,
/// all before the connection serves an exchange, so a refused server never receives a byte
/// of application data.
///
/// Confined to its loop. Ends exactly once through `completion`: with a ``Transport`` ready
/// for HTTP, or with an error after closing the socket.
final class TLSHandshake: IOHandler {
    private let loop: EventLoop
    private let transport: Transport
    private let tls: TLSConnection
    private let host: String
    private let port: Int
    private let trustStore: TrustStore
    private let check: ServerTrustCheck?
    private let identityProvider: ClientIdentityProvider?
    private var completion: ((Result<(Transport, TLSFacts), EngineError>) -> Void)?
    private var timer: TimerID?
    private var interest: IOEvents = []
    private var evaluating = false
    /// The chain the evaluation accepted, once it has.
    private var accepted: ServerTrust?
    /// A hang-up during the evaluation took the socket out of epoll.
    private var leftEpoll = false
    private var isFinished = false

    init(
        loop: EventLoop, socket: Socket, tls: TLSConnection, host: String, port: Int,
        trustStore: TrustStore, check: ServerTrustCheck?, identityProvider: ClientIdentityProvider? = nil
    ) {
        self.loop = loop
        self.transport = Transport(socket: socket, tls: tls, loop: loop)
        self.tls = tls
        self.host = host
        self.port = port
        self.trustStore = trustStore
        self.check = check
        self.identityProvider = identityProvider
    }

    /// Starts; `deadline` bounds the handshake and the trust evaluation together.
    func start(deadline: Deadline, completion: @escaping (Result<(Transport, TLSFacts), EngineError>) -> Void) {
        self.completion = completion
        timer = loop.scheduleTimer(at: deadline) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.finish(.failure(EngineError(.connectTimedOut(host: self.host, port: self.port))))
        }
        do throws(SystemError) {
            try loop.register(fd: transport.fd, interest: .read, handler: self)
            interest = .read
        } catch {
            return finish(.failure(EngineError(.connectFailed(host: host, port: port, error))))
        }
        advance()
    }

    /// Gives up (the waiting exchange left, or the pool shut down); nothing is reported.
    func cancel() {
        completion = nil
        finish(.failure(EngineError(.cancelled)))
    }

    // MARK: - IOHandler

    func readable() {
        guard completion != nil, !evaluating else { return }
        // Ciphertext only: the handshake consumes it through the TLS connection.
        switch transportRead() {
        case .none: return
        case .some(true): advance()
        case .some(false): fail(TLSError(.closedDuringHandshake, detail: "after \(host) port \(port) accepted the connection"))
        }
    }

    func writable() {
        guard completion != nil, !evaluating else { return }
        advance()
    }

    func hangup() {
        // EPOLLHUP cannot be masked: while the evaluator decides, leave epoll (or the loop
        // would spin); the HTTP connection registers again and meets the EOF itself.
        if evaluating {
            leftEpoll = true
            return loop.deregister(fd: transport.fd)
        }
        readable()
    }

    // MARK: - Steps

    private func advance() {
        let status = tls.handshake()
        // Every flight but the last goes out at once: the server waits for it. The last one
        // (TLS 1.3's Finished, or a resumed TLS 1.2 session's) waits for the connection's
        // first write, so it and the request leave in one segment: one send, and one wake-up
        // of the server, fewer.
        if case .complete = status {
            setInterest(.read)
        } else {
            do throws(TransportFailure) {
                let flushed = try transport.flush()
                setInterest(flushed ? .read : [.read, .write])
            } catch {
                return failTransport(error)
            }
        }
        switch status {
        case .needsInput:
            return
        case .failed(let error):
            fail(error)
        case .needsVerification:
            // A full handshake: judged before the client says another word (its certificate
            // included).
            evaluate()
        case .needsClientIdentity:
            // The chain was judged already (TLS asks for the client's certificate after it).
            chooseIdentity()
        case .complete:
            if let accepted { return succeed(with: accepted) }
            // A resumed session brings no chain to the callback. The default rules approved
            // its chain when the session was made; within its validity that verdict stands.
            if check == nil, let approval = tls.resumedSessionApproval, approval.holds() {
                accepted = approval.trust
                tls.recordDefaultTrustApproval(approval)
                return succeed(with: approval.trust)
            }
            // Otherwise judge the stored chain now, still before any request byte.
            evaluate()
        }
    }

    private func evaluate() {
        // The very chain the default rules approved last for this host and port, still valid:
        // its verdict stands (DefaultTrustApproval). OpenSSL still checks the server's
        // signature with the leaf's key.
        if check == nil, let approval = tls.cachedApprovalOfPeerChain {
            return trustDecided(nil, trust: approval.trust, approval: approval)
        }
        evaluating = true
        let trust: ServerTrust
        do throws(CertificateError) {
            trust = try tls.withPeerChain { chain throws(CertificateError) -> ServerTrust in
                guard let chain else { throw CertificateError(.noCertificate, detail: "the server sent no certificate") }
                return try ServerTrust(host: host, peerChain: chain, trustStore: trustStore)
            }
        } catch {
            return fail(TLSError(.handshakeFailed, detail: "unreadable server certificate: \(error)"))
        }
        guard let check else {
            // Decided here and now: no event can come in between, so epoll need not hear of it.
            return trustDecided(trust.defaultEvaluationFailure.map { ServerTrustError.untrusted($0, host: host) }, trust: trust)
        }
        // The evaluator answers later: until then the socket must not wake the loop.
        setInterest([])
        let loop = self.loop
        let box = LoopBound(self)
        check(trust, port) { refusal in
            loop.execute { box.value.trustDecided(refusal, trust: trust) }
        }
    }

    private func chooseIdentity() {
        guard let identityProvider else {
            tls.provideClientIdentity(nil)
            return advance()
        }
        // The provider answers later (it is the caller's code): the socket must not wake the loop.
        evaluating = true
        setInterest([])
        let loop = self.loop
        let box = LoopBound(self)
        identityProvider(host, port) { answer in
            loop.execute { box.value.identityChosen(answer) }
        }
    }

    private func identityChosen(_ answer: ClientIdentityAnswer) {
        guard completion != nil else { return }
        evaluating = false
        switch answer {
        case .identity(let identity): tls.provideClientIdentity(identity)
        case .none: tls.provideClientIdentity(nil)
        case .cancel: return finish(.failure(EngineError(.cancelled)))
        }
        guard rejoinEpoll() else { return }
        advance()
    }

    /// Registers the socket again if a hang-up took it out of epoll while the caller's code
    /// decided. `false` when that failed (reported).
    private func rejoinEpoll() -> Bool {
        guard leftEpoll else { return true }
        leftEpoll = false
        interest = []
        do throws(SystemError) {
            try loop.register(fd: transport.fd, interest: .read, handler: self)
            interest = .read
            return true
        } catch {
            fail(TLSError(.handshakeFailed, detail: error.description))
            return false
        }
    }

    private func trustDecided(_ refusal: ServerTrustError?, trust: ServerTrust, approval: DefaultTrustApproval? = nil) {
        guard completion != nil else { return }
        if let refusal { return finish(.failure(EngineError(.serverTrustRejected(refusal)))) }
        accepted = trust
        // Sessions this connection brings home, and later handshakes that bring the same
        // chain, carry the default rules' verdict (see above).
        if check == nil, let approval = approval ?? DefaultTrustApproval(trust) {
            tls.recordDefaultTrustApproval(approval)
        }
        evaluating = false
        guard tls.isHandshakeFinished else {
            // Accepted in the middle of the handshake: let it finish.
            tls.approvePeer()
            guard rejoinEpoll() else { return }
            return advance()
        }
        succeed(with: trust)
    }

    private func succeed(with trust: ServerTrust) {
        let facts = TLSFacts(
            protocolVersion: tls.protocolVersion ?? "TLS", cipherSuite: tls.cipherSuite ?? "",
            applicationProtocol: tls.applicationProtocol, isResumed: tls.isResumed,
            verifyResult: Int(trust.defaultEvaluationFailure?.verifyCode ?? 0))
        finish(.success((transport, facts)))
    }

    /// Reads ciphertext into the TLS connection: `true` when some arrived, `false` at EOF,
    /// nil when the socket had nothing (or failed, which has been reported).
    private func transportRead() -> Bool? {
        do throws(TransportFailure) {
            switch try transport.receiveCiphertext() {
            case .wouldBlock: return nil
            case .processed(0): return false
            case .processed: return true
            }
        } catch {
            failTransport(error)
            return nil
        }
    }

    private func fail(_ error: TLSError) {
        finish(.failure(EngineError(.tlsHandshakeFailed(host: host, port: port, error))))
    }

    private func failTransport(_ failure: TransportFailure) {
        // A reset during the handshake is a failed handshake (curl's exit 35), not a failed connect.
        switch failure {
        case .system(let error): fail(TLSError(.handshakeFailed, detail: error.description))
        case .tls(let error): fail(error)
        }
    }

    private func finish(_ result: Result<(Transport, TLSFacts), EngineError>) {
        guard !isFinished else { return }
        isFinished = true
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        let failed: Bool
        if case .failure = result { failed = true } else { failed = false }
        // On success the HTTP connection registers the descriptor again in this same turn.
        loop.deregister(fd: transport.fd, closing: failed)
        interest = []
        let completion = self.completion
        self.completion = nil
        if failed {
            // A refused server gets close_notify at most: never application data.
            transport.close()
        }
        completion?(result)
    }

    private func setInterest(_ new: IOEvents) {
        guard new != interest, completion != nil else { return }
        interest = new
        do throws(SystemError) {
            try loop.modify(fd: transport.fd, interest: new)
        } catch {
            finish(.failure(EngineError(.connectFailed(host: host, port: port, error))))
        }
    }
}
