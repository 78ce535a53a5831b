import FerryBase
import CFerryShims
import COpenSSL
import Synchronization

/// One OpenSSL client context (`SSL_CTX`) built from a ``TLSConfiguration``, shared by every
/// connection made with that configuration, with its cache of resumable sessions.
///
/// OpenSSL verifies nothing itself: the context's certificate verification callback suspends
/// the handshake as soon as the server's chain has arrived (``TLSConnection/HandshakeStatus/needsVerification``),
/// the owner judges that chain as a ``ServerTrust`` (one path for the default rules and for
/// pinning), and the handshake goes on only once it is accepted. So a refused server never
/// sees the client's certificate, let alone a request byte.
package final class TLSClientContext: @unchecked Sendable {
    // Safety: the SSL_CTX is configured in init and only read afterwards (SSL_new is
    // thread-safe on a context that is no longer modified); the session cache has its own lock.
    /// The configuration the context was built from.
    package let configuration: TLSConfiguration
    /// When the configuration has no client identity and a server asks for one, the handshake
    /// stops for its owner to pick one (``TLSConnection/HandshakeStatus/needsClientIdentity``).
    package let asksForClientIdentity: Bool
    let context: OpaquePointer
    let sessions: TLSSessionCache
    /// The default rules' approvals of the chains servers presented, by `host:port`.
    let approvals: TrustApprovalCache
    /// The record buffer of each connection while it reads: four full records (16 KiB plus
    /// overhead each) per read(2). Not more: OpenSSL 3.0 moves the unread rest of the buffer to
    /// its start before each record it decrypts (to align it), so a larger buffer costs more
    /// copying than the read(2) calls it saves (measured on W4: 10% of the CPU in memmove with
    /// sixteen records, 4.8% with four, 3.6% with two). Idle connections give it back
    /// (SSL_MODE_RELEASE_BUFFERS).
    package static let readBufferLength = 4 * (16 * 1024 + 512)
    /// The most TLS sessions kept for resumption, and the most hosts whose trust was approved:
    /// the oldest is dropped first (SECURITY.md, "Limits").
    package static let cacheCapacity = 256

    /// Builds the context.
    /// - Throws: ``TLSError/Kind-swift.struct/invalidConfiguration`` when OpenSSL refuses a
    ///   setting (out of memory, an identity it cannot use, an empty ALPN name).
    package init(configuration: TLSConfiguration, asksForClientIdentity: Bool = false) throws(TLSError) {
        OpenSSLSupport.clearErrors()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TLSError(.invalidConfiguration, detail: "SSL_CTX_new: \(OpenSSLSupport.drainErrors())")
        }
        self.configuration = configuration
        self.asksForClientIdentity = asksForClientIdentity && configuration.clientIdentity == nil
        self.context = context
        self.sessions = TLSSessionCache(capacity: Self.cacheCapacity)
        self.approvals = TrustApprovalCache(capacity: Self.cacheCapacity)
        // Every property is set, so a throw here still runs deinit, which frees the context.
        try configure()
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// Forgets every resumable session and every kept approval of a chain, so each later
    /// connection makes a full handshake whose chain is verified afresh (URLSession's `reset`).
    package func forgetSessions() {
        sessions.removeAll()
        approvals.removeAll()
    }

    /// The names of the cipher suites the context offers (OpenSSL's spelling, TLS 1.3's
    /// included), for tests and diagnostics.
    package var cipherSuiteNames: [String] {
        guard let stack = SSL_CTX_get_ciphers(context) else { return [] }
        return (0..<OPENSSL_sk_num(stack)).compactMap { index in
            OPENSSL_sk_value(stack, index).flatMap { SSL_CIPHER_get_name(OpaquePointer($0)) }.map { String(cString: $0) }
        }
    }

    /// A new client connection for `serverName` (a DNS name or an IP literal without
    /// brackets) and `port`, resuming a cached session for the pair when allowed.
    package func makeConnection(serverName: String, port: Int) throws(TLSError) -> TLSConnection {
        try TLSConnection(context: self, serverName: serverName, port: port)
    }

    private func configure() throws(TLSError) {
        let settings = configuration
        if let maximum = settings.maximumVersion, maximum < settings.minimumVersion {
            throw TLSError(.invalidConfiguration, detail: "maximum version \(maximum) is older than minimum \(settings.minimumVersion)")
        }
        guard cferry_ssl_ctx_set_min_proto(context, settings.minimumVersion.openSSLValue) == 1,
              cferry_ssl_ctx_set_max_proto(context, settings.maximumVersion?.openSSLValue ?? 0) == 1 else {
            throw TLSError(.invalidConfiguration, detail: "protocol versions: \(OpenSSLSupport.drainErrors())")
        }
        // TLS 1.2's suites with ECDHE and an AEAD cipher only (TLS 1.3 has its own list, all such).
        if settings.requiresForwardSecrecy,
           SSL_CTX_set_cipher_list(context, "ECDHE+AESGCM:ECDHE+CHACHA20:!aNULL") != 1 {
            throw TLSError(.invalidConfiguration, detail: "forward-secret cipher list: \(OpenSSLSupport.drainErrors())")
        }
        // Idle pooled connections give their record buffers back.
        _ = cferry_ssl_ctx_set_mode(context, cferry_ssl_mode_release_buffers())
        // Room for several records, so a connection reading its socket with read-ahead
        // (TLSConnection.readFromSocket) takes up to this much per read(2).
        SSL_CTX_set_default_read_buffer_len(context, Self.readBufferLength)
        // A TLS 1.2 renegotiation would bring a new server certificate no evaluator has seen.
        cferry_ssl_ctx_no_renegotiation(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        SSL_CTX_set_cert_verify_callback(context, { storeContext, _ in
            guard let storeContext,
                  let raw = X509_STORE_CTX_get_ex_data(storeContext, SSL_get_ex_data_X509_STORE_CTX_idx()),
                  let owner = SSL_get_ex_data(OpaquePointer(raw), 0) else { return 0 }
            let connection = Unmanaged<TLSConnection>.fromOpaque(owner).takeUnretainedValue()
            // Accepted by the owner: go on. Otherwise hand the chain to the owner first.
            return connection.isPeerApproved ? 1 : cferry_ssl_set_retry_verify(OpaquePointer(raw))
        }, nil)
        if !settings.applicationProtocols.isEmpty {
            var wire: [UInt8] = []
            for name in settings.applicationProtocols {
                let bytes = Array(name.utf8)
                guard (1...255).contains(bytes.count) else {
                    throw TLSError(.invalidConfiguration, detail: "ALPN protocol name \"\(name)\" must be 1 to 255 bytes")
                }
                wire.append(UInt8(bytes.count))
                wire += bytes
            }
            // Returns 0 on success, unlike most of OpenSSL.
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
                throw TLSError(.invalidConfiguration, detail: "ALPN: \(OpenSSLSupport.drainErrors())")
            }
        }
        if let identity = settings.clientIdentity {
            guard SSL_CTX_use_certificate(context, identity.x509) == 1,
                  SSL_CTX_use_PrivateKey(context, identity.privateKey) == 1 else {
                throw TLSError(.invalidConfiguration, detail: "client identity \(identity.certificate.subject): \(OpenSSLSupport.drainErrors())")
            }
            for intermediate in identity.chain where cferry_ssl_ctx_add1_chain_cert(context, intermediate) != 1 {
                throw TLSError(.invalidConfiguration, detail: "client chain: \(OpenSSLSupport.drainErrors())")
            }
        } else {
            // Without an identity OpenSSL calls this when the server asks for a certificate
            // (RFC 5246 §7.4.4): the connection asks its owner when the context says so, and
            // otherwise sends none (returning 0) and notes it, so a TLS 1.2 handshake_failure
            // that follows is named for what it is.
            SSL_CTX_set_client_cert_cb(context) { ssl, x509, key in
                guard let ssl, let owner = SSL_get_ex_data(ssl, 0) else { return 0 }
                return Unmanaged<TLSConnection>.fromOpaque(owner).takeUnretainedValue().clientCertificateRequested(x509, key)
            }
        }
        if settings.resumesSessions {
            // Sessions live in our cache keyed by host and port, not OpenSSL's internal one
            // (which is keyed by session id and meant for servers).
            _ = cferry_ssl_ctx_set_session_cache_mode(context, cferry_ssl_sess_cache_client_external())
            SSL_CTX_sess_set_new_cb(context) { ssl, session in
                guard let ssl, let session, let owner = SSL_get_ex_data(ssl, 0) else { return 0 }
                Unmanaged<TLSConnection>.fromOpaque(owner).takeUnretainedValue().sessionIssued(session)
                // 1: the cache keeps the reference OpenSSL handed over.
                return 1
            }
        } else {
            _ = cferry_ssl_ctx_set_session_cache_mode(context, 0)
        }
    }
}

/// Resumable sessions by `host:port`, bounded, oldest dropped first.
final class TLSSessionCache: Sendable {
    /// An `SSL_SESSION*` the cache holds one reference to. Sessions are immutable once issued
    /// and OpenSSL's reference counts are atomic, so the pointer may cross threads.
    private struct Session: @unchecked Sendable {
        let pointer: OpaquePointer
        /// The default rules' verdict on the chain of the handshake that made the session.
        let approval: DefaultTrustApproval?
    }

    private let entries: Locked<BoundedCache<Session>>

    init(capacity: Int) {
        entries = Locked(BoundedCache(capacity: capacity))
    }

    deinit {
        entries.withLock { entries in
            for session in entries.allValues { SSL_SESSION_free(session.pointer) }
        }
    }

    /// Stores `session` (taking over its reference) under `key`, replacing an older one, with
    /// the default rules' approval of its chain, if they approved it.
    func store(_ session: OpaquePointer, for key: String, approval: DefaultTrustApproval?) {
        let evicted = entries.withLock { $0.store(Session(pointer: session, approval: approval), for: key) }
        evicted.forEach { SSL_SESSION_free($0.pointer) }
    }

    /// Runs `body` with the cached session for `key` (valid only inside `body`) and its
    /// approval, if any.
    func withSession(for key: String, _ body: (OpaquePointer?, DefaultTrustApproval?) -> Void) {
        entries.withLock { entries in
            let session = entries[key]
            body(session?.pointer, session?.approval)
        }
    }

    /// Forgets every session.
    func removeAll() {
        entries.withLock { $0.removeAll() }.forEach { SSL_SESSION_free($0.pointer) }
    }

    /// Forgets the session for `key` (the handshake that tried it failed).
    func remove(_ key: String) {
        if let removed = entries.withLock({ $0.remove(key) }) { SSL_SESSION_free(removed.pointer) }
    }

    /// How many sessions are cached.
    var count: Int { entries.withLock { $0.count } }
}

/// The default rules' approvals of the chains servers presented, by `host:port`, bounded,
/// oldest dropped first (see ``DefaultTrustApproval``).
final class TrustApprovalCache: Sendable {
    private let entries: Locked<BoundedCache<DefaultTrustApproval>>

    init(capacity: Int) {
        entries = Locked(BoundedCache(capacity: capacity))
    }

    /// Keeps `approval` for `key`, replacing an older one.
    func store(_ approval: DefaultTrustApproval, for key: String) {
        _ = entries.withLock { $0.store(approval, for: key) }
    }

    /// Forgets every approval.
    func removeAll() {
        _ = entries.withLock { $0.removeAll() }
    }

    /// The approval kept for `key`, if any.
    subscript(key: String) -> DefaultTrustApproval? { entries.withLock { $0[key] } }

    /// How many approvals are kept.
    var count: Int { entries.withLock { $0.count } }
}
