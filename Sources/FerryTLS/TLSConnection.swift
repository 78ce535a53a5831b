#if canImport(Glibc)
import Glibc
#endif
import CFerryShims
import COpenSSL

/// The client side of one TLS connection, over memory BIOs: it never touches a socket unless
/// told to read from one.
///
/// The owner moves bytes: ciphertext read from the network goes in with ``receive(_:)``,
/// ciphertext to send comes out with ``takeOutput(into:)``. In between, ``handshake()``,
/// ``read(into:)`` and ``write(_:)`` work on plaintext and say when they need more input, so
/// the same object runs over a socket, through a proxy tunnel, or in a memory test. Once the
/// handshake is over, an owner on a plain socket may hand input over to OpenSSL with
/// ``readFromSocket(_:)``, which saves two copies of every byte received.
///
/// Not thread-safe: confined to one thread (an event loop) at a time.
package final class TLSConnection {
    /// Where the handshake stands.
    package enum HandshakeStatus: Equatable {
        /// Finished: application data may flow.
        case complete
        /// Send ``pendingOutput`` and feed more ciphertext, then call again.
        case needsInput
        /// The server's chain has arrived (``withPeerChain(_:)``): judge it, then call
        /// ``approvePeer()`` and go on, or drop the connection. Nothing of the client's
        /// certificate has been sent yet.
        case needsVerification
        /// The server asked for a client certificate and the context has none: pick one (or
        /// none) with ``provideClientIdentity(_:)``, then call again. Only when the context was
        /// made with `asksForClientIdentity`; otherwise none is sent at once.
        case needsClientIdentity
        /// Failed; the connection is unusable.
        case failed(TLSError)
    }

    /// The outcome of a plaintext read.
    package enum ReadResult: Equatable {
        /// This many plaintext bytes were read into the buffer.
        case bytes(Int)
        /// No plaintext yet: feed more ciphertext.
        case needsInput
        /// The server sent close_notify: the end of the data, cleanly.
        case closed
        /// A record could not be processed (or the server sent a fatal alert).
        case failed(TLSError)
        /// Reading the socket (``readFromSocket(_:)``) failed with this `errno`.
        case socketFailed(Int32)
    }

    /// The name sent as SNI and used for the session cache (DNS name or IP literal).
    package let serverName: String
    private let context: TLSClientContext
    private let ssl: OpaquePointer
    /// The input memory BIO; OpenSSL frees it when ``readFromSocket(_:)`` replaces it.
    private var inbound: OpaquePointer?
    private let outbound: OpaquePointer
    private let cacheKey: String
    private var isHandshakeComplete = false
    /// The first failure, reported again by later calls (OpenSSL's queue holds it only once).
    private var failure: TLSError?
    /// The server asked for a client certificate, and none is configured.
    private var certificateRequestedWithoutIdentity = false
    /// The owner's answer to ``HandshakeStatus/needsClientIdentity``: nil until it answered,
    /// `.some(nil)` for no certificate.
    private var providedIdentity: ClientIdentity??
    /// The owner accepted the server's chain; the verification callback lets the handshake on.
    private(set) var isPeerApproved = false
    /// The default rules' approval of this connection's chain (``recordDefaultTrustApproval(_:)``);
    /// sessions the server issues on this connection carry it.
    private(set) var defaultTrustApproval: DefaultTrustApproval?
    private var offeredSessionApproval: DefaultTrustApproval?

    init(context: TLSClientContext, serverName: String, port: Int) throws(TLSError) {
        OpenSSLSupport.clearErrors()
        guard let ssl = SSL_new(context.context) else {
            throw TLSError(.invalidConfiguration, detail: "SSL_new: \(OpenSSLSupport.drainErrors())")
        }
        guard let inbound = BIO_new(BIO_s_mem()), let outbound = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TLSError(.invalidConfiguration, detail: "BIO_new: \(OpenSSLSupport.drainErrors())")
        }
        // An empty input BIO means "wait for more", never end of file.
        _ = cferry_bio_set_mem_eof_return(inbound, -1)
        SSL_set_bio(ssl, inbound, outbound)
        SSL_set_connect_state(ssl)
        self.ssl = ssl
        self.inbound = inbound
        self.outbound = outbound
        self.context = context
        self.serverName = serverName
        self.cacheKey = "\(serverName.lowercased()):\(port)"
        // RFC 6066 §3: SNI carries DNS names only, never an address literal.
        if !Self.isIPLiteral(serverName), cferry_ssl_set_sni(ssl, serverName) != 1 {
            // Every property is set: deinit frees `ssl` (and its BIOs).
            throw TLSError(.invalidConfiguration, detail: "server name \"\(serverName)\": \(OpenSSLSupport.drainErrors())")
        }
        // The callbacks (new session, certificate requested) find this object here; `ssl` dies
        // with it, so the unretained pointer never outlives it.
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        if context.configuration.resumesSessions {
            context.sessions.withSession(for: cacheKey) { session, approval in
                guard let session, SSL_set_session(ssl, session) == 1 else { return }
                offeredSessionApproval = approval
            }
        }
    }

    deinit {
        SSL_free(ssl)
    }

    // MARK: - Moving ciphertext

    /// Hands ciphertext read from the network to OpenSSL.
    package func receive(_ ciphertext: UnsafeRawBufferPointer) {
        guard let inbound else { preconditionFailure("receive(_:) after readFromSocket(_:)") }
        var offset = 0
        while offset < ciphertext.count {
            let chunk = Int32(clamping: ciphertext.count - offset)
            let written = BIO_write(inbound, ciphertext.baseAddress! + offset, chunk)
            // A memory BIO refuses a write only when memory runs out.
            precondition(written > 0, "BIO_write to a memory BIO failed")
            offset += Int(written)
        }
    }

    /// Ciphertext received but not yet decrypted, or plaintext decrypted but not yet read.
    package var hasBufferedInput: Bool {
        if let inbound, BIO_ctrl_pending(inbound) > 0 { return true }
        return SSL_has_pending(ssl) == 1
    }

    /// OpenSSL reads the socket itself (``readFromSocket(_:)`` took effect).
    package var readsSocket: Bool { inbound == nil }

    /// From now on OpenSSL reads ciphertext straight from `fd` (which stays the caller's),
    /// a whole record buffer per read(2), instead of being fed by ``receive(_:)``. Takes
    /// effect only after the handshake and once every byte already received was consumed.
    /// - Returns: Whether OpenSSL now reads the socket.
    @discardableResult
    package func readFromSocket(_ fd: Int32) -> Bool {
        guard let inbound else { return true }
        guard isHandshakeComplete, failure == nil, BIO_ctrl_pending(inbound) == 0 else { return false }
        guard cferry_ssl_read_from_socket(ssl, fd) == 1 else {
            OpenSSLSupport.clearErrors()
            return false
        }
        self.inbound = nil
        return true
    }

    /// Ciphertext waiting to be sent, in bytes.
    package var pendingOutput: Int { Int(BIO_ctrl_pending(outbound)) }

    /// Moves up to `buffer.count` bytes of pending ciphertext into `buffer`.
    /// - Returns: How many bytes were moved (0 when none is pending).
    package func takeOutput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard pendingOutput > 0, let base = buffer.baseAddress else { return 0 }
        let read = BIO_read(outbound, base, Int32(clamping: buffer.count))
        return max(0, Int(read))
    }

    // MARK: - TLS

    /// Advances the handshake as far as the ciphertext received allows.
    package func handshake() -> HandshakeStatus {
        guard !isHandshakeComplete else { return .complete }
        if let failure { return .failed(failure) }
        OpenSSLSupport.clearErrors()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            isHandshakeComplete = true
            return .complete
        }
        let code = SSL_get_error(ssl, result)
        if code == cferry_ssl_error_want_retry_verify() { return .needsVerification }
        if code == SSL_ERROR_WANT_X509_LOOKUP { return .needsClientIdentity }
        switch code {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .needsInput
        default:
            context.sessions.remove(cacheKey)
            var error = Self.classify(during: true)
            if certificateRequestedWithoutIdentity, error.kind == .handshakeFailed {
                // TLS 1.2 has no certificate_required alert (RFC 8446 §6.2 added it): a server
                // refusing a client without a certificate sends a plain handshake_failure.
                error = TLSError(.clientCertificateRequired, detail: "no client identity is configured; \(error.detail)")
            }
            failure = error
            return .failed(error)
        }
    }

    /// Answers ``HandshakeStatus/needsClientIdentity``: the certificate (and key and chain) to
    /// send, or nil for none; the next ``handshake()`` goes on.
    package func provideClientIdentity(_ identity: ClientIdentity?) {
        providedIdentity = .some(identity)
    }

    /// Accepts the server's chain after ``HandshakeStatus/needsVerification``; the next
    /// ``handshake()`` goes on. (A resumed session brings no chain and never asks.)
    package func approvePeer() {
        isPeerApproved = true
    }

    /// Decrypts application data into `buffer`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return .bytes(0) }
        if let failure { return .failed(failure) }
        OpenSSLSupport.clearErrors()
        var count = 0
        errno = 0
        if SSL_read_ex(ssl, base, buffer.count, &count) == 1 { return .bytes(count) }
        let systemErrno = errno
        switch SSL_get_error(ssl, 0) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .needsInput
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        case SSL_ERROR_SYSCALL where readsSocket && systemErrno != 0 && ERR_peek_error() == 0:
            return .socketFailed(systemErrno)
        default:
            let error = Self.classify(during: false)
            failure = error
            return .failed(error)
        }
    }

    /// Encrypts all of `plaintext` into pending output (memory never refuses a write).
    /// - Throws: ``TLSError`` when the connection can no longer send.
    package func write(_ plaintext: UnsafeRawBufferPointer) throws(TLSError) {
        guard let base = plaintext.baseAddress, !plaintext.isEmpty else { return }
        if let failure { throw failure }
        OpenSSLSupport.clearErrors()
        var written = 0
        guard SSL_write_ex(ssl, base, plaintext.count, &written) == 1, written == plaintext.count else {
            let error = Self.classify(during: false)
            failure = error
            throw error
        }
    }

    /// Queues close_notify (RFC 8446 §6.1) in the pending output; the owner sends it if it can.
    package func close() {
        guard isHandshakeComplete else { return }
        OpenSSLSupport.clearErrors()
        _ = SSL_shutdown(ssl)
        OpenSSLSupport.clearErrors()
    }

    // MARK: - Facts

    /// The handshake has completed.
    package var isHandshakeFinished: Bool { isHandshakeComplete }

    /// The negotiated version, such as `TLSv1.3`.
    package var protocolVersion: String? {
        guard isHandshakeComplete, let name = SSL_get_version(ssl) else { return nil }
        return String(cString: name)
    }

    /// The negotiated cipher suite, in OpenSSL's naming (`TLS_AES_128_GCM_SHA256`).
    package var cipherSuite: String? {
        guard isHandshakeComplete, let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_get_name(cipher) else { return nil }
        return String(cString: name)
    }

    /// The ALPN protocol the server chose, if any.
    package var applicationProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// True when the handshake resumed an earlier session (no certificate exchange).
    package var isResumed: Bool { SSL_session_reused(ssl) == 1 }

    /// The default rules' approval of the chain of the session this connection resumed, when
    /// they approved it (nil before the handshake, or when it made a new session).
    package var resumedSessionApproval: DefaultTrustApproval? {
        isHandshakeComplete && isResumed ? offeredSessionApproval : nil
    }

    /// The default rules' approval of the chain approved last for this host and port, when the
    /// server brought that very chain, byte for byte, and every certificate of its path is
    /// still valid (see ``DefaultTrustApproval``); nil otherwise, or before the chain arrived.
    package var cachedApprovalOfPeerChain: DefaultTrustApproval? {
        guard let chain = SSL_get_peer_cert_chain(ssl), let approval = context.approvals[cacheKey],
              approval.holds(), approval.isApproval(of: chain) else { return nil }
        return approval
    }

    /// Records that the default rules approved this connection's chain: sessions the server
    /// issues on this connection carry the approval, and a later full handshake with this host
    /// and port that brings the same chain is accepted on it while it holds.
    package func recordDefaultTrustApproval(_ approval: DefaultTrustApproval) {
        defaultTrustApproval = approval
        context.approvals.store(approval, for: cacheKey)
    }

    /// Runs `body` with the server's chain as sent, leaf first (`STACK_OF(X509)*`, borrowed),
    /// or nil before the handshake. A resumed session keeps the chain of its first handshake.
    package func withPeerChain<R, E: Error>(_ body: (OpaquePointer?) throws(E) -> R) throws(E) -> R {
        try body(SSL_get_peer_cert_chain(ssl))
    }

    // MARK: - Private

    /// OpenSSL's client certificate callback ran: the server sent a CertificateRequest and the
    /// context has no identity. Returns the callback's answer: 1 with `x509` and `key` set (each
    /// with a reference of its own for OpenSSL), 0 for no certificate, -1 to suspend the
    /// handshake until the owner answers (``HandshakeStatus/needsClientIdentity``).
    func clientCertificateRequested(
        _ x509: UnsafeMutablePointer<OpaquePointer?>?, _ key: UnsafeMutablePointer<OpaquePointer?>?
    ) -> Int32 {
        guard context.asksForClientIdentity else {
            certificateRequestedWithoutIdentity = true
            return 0
        }
        guard let answer = providedIdentity else { return -1 }
        guard let identity = answer, let x509, let key else {
            certificateRequestedWithoutIdentity = true
            return 0
        }
        for intermediate in identity.chain where cferry_ssl_add1_chain_cert(ssl, intermediate) != 1 {
            return 0
        }
        X509_up_ref(identity.x509)
        EVP_PKEY_up_ref(identity.privateKey)
        x509.pointee = identity.x509
        key.pointee = identity.privateKey
        return 1
    }

    /// OpenSSL issued a resumable session (after the handshake in TLS 1.2, in a post-handshake
    /// message in TLS 1.3); the cache takes over OpenSSL's reference.
    func sessionIssued(_ session: OpaquePointer) {
        context.sessions.store(session, for: cacheKey, approval: defaultTrustApproval)
    }

    /// The error on OpenSSL's queue, sorted into a kind. Alerts from the server about our
    /// certificate are told apart, since the fix (another client identity) differs.
    private static func classify(during handshake: Bool) -> TLSError {
        let code = ERR_peek_last_error()
        let reason = cferry_err_get_lib(code) == cferry_err_lib_ssl() ? cferry_err_get_reason(code) : 0
        let detail = OpenSSLSupport.drainErrors()
        let text = detail.isEmpty ? "the connection failed without an OpenSSL error" : detail
        switch reason {
        case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
            return TLSError(.clientCertificateRequired, detail: text)
        case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE, SSL_R_TLSV1_ALERT_UNKNOWN_CA, SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN,
             SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE, SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED,
             SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED, SSL_R_TLSV1_ALERT_ACCESS_DENIED:
            return TLSError(.clientCertificateRejected, detail: text)
        case SSL_R_TLSV1_ALERT_PROTOCOL_VERSION, SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_WRONG_SSL_VERSION,
             SSL_R_NO_PROTOCOLS_AVAILABLE, SSL_R_VERSION_TOO_LOW, SSL_R_VERSION_TOO_HIGH:
            return TLSError(.unsupportedVersion, detail: text)
        default:
            return TLSError(handshake ? .handshakeFailed : .recordLayerFailed, detail: text)
        }
    }

    private static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
