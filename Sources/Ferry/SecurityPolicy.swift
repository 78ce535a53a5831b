import FerrySession
import FerryTLS
import FoundationEssentials

/// Decides whether to trust a server, with AFNetworking 4's `AFSecurityPolicy` semantics:
/// chain validation, domain validation, and certificate or public-key pinning.
///
/// ```swift
/// var policy = SecurityPolicy(pinningMode: .publicKey,
///                             pinnedCertificates: try SecurityPolicy.certificates(inDirectory: pins))
/// policy.pinnedPublicKeyHashes = Set(try PublicKeyPin.pins(fromCurlList: "sha256//…=;sha256//…="))
/// ```
///
/// The rules, in order (AFNetworking's `evaluateServerTrust:forDomain:`):
/// 1. With a domain, ``allowInvalidCertificates`` and ``validatesDomainName`` but no pinning
///    (mode ``PinningMode-swift.enum/none``, or no pins) the server is refused: a self-signed
///    certificate can only be tied to a name by pinning it.
/// 2. The chain is checked as a TLS server chain that names the domain when
///    ``validatesDomainName`` is true, else with the basic X.509 check (no name, no purpose).
/// 3. Mode `none`: trusted when ``allowInvalidCertificates`` or the chain is valid against the
///    trust's store.
/// 4. With pinning and not ``allowInvalidCertificates``, the chain must first be valid
///    against the trust's store (else ``TLSErrorKind/untrusted``).
/// 5. Mode `certificate`: the chain must verify against the pinned certificates alone (any
///    of them an anchor, as Apple's `SecTrustSetAnchorCertificates`), with the same name
///    check, and the chain so built must hold a certificate byte-equal to a pinned one.
/// 6. Mode `publicKey`: some certificate of the chain must carry a pinned key (the key of a
///    pinned certificate, or one of ``pinnedPublicKeyHashes``). The chain is the validated
///    path when rule 4 ran: leaf to the store's root, or, when no valid path reaches a root
///    of the store, to the first certificate of the store it reaches; the certificates as sent when
///    ``allowInvalidCertificates``. The name is checked only by rule 4.
///
/// - Warning: Pinning a shared public root or intermediate proves only that the server's
///   certificate comes from that CA, which signs certificates for anyone. With
///   ``validatesDomainName`` false, any site with a certificate from that CA passes. Pin your
///   own leaf or its key (with a backup key), or keep domain validation on. For the same
///   reason, in `publicKey` mode with ``allowInvalidCertificates``, no chain is verified and
///   the name is never checked (AFNetworking's behaviour, kept): only the leaf's key is
///   proven, by the handshake; a pinned CA key is then worthless, since anyone can send the
///   CA's certificate along with their own leaf.
public struct SecurityPolicy: ServerTrustEvaluating, Hashable, Sendable {
    /// How the server's chain is pinned (AFNetworking's `AFSSLPinningMode`).
    public enum PinningMode: String, Sendable, Hashable, Codable {
        /// No pinning: a valid chain (or ``SecurityPolicy/allowInvalidCertificates``) suffices.
        case none
        /// Some certificate of the chain must carry a pinned public key. Survives
        /// re-issuing a certificate with the same key.
        case publicKey
        /// The chain must lead to a pinned certificate, byte for byte.
        case certificate
    }

    /// How the chain is pinned.
    public let pinningMode: PinningMode
    /// The pinned certificates: anchors in `certificate` mode; in `publicKey` mode their
    /// public keys are pins; unused in mode `none`.
    public var pinnedCertificates: Set<Certificate>
    /// Public-key pins in curl's form, used in `publicKey` mode only (certificate mode cannot
    /// anchor a chain on a hash): a key of the chain passes when it matches one of these OR
    /// the key of one of ``pinnedCertificates``. Keep a backup pin for your next key.
    public var pinnedPublicKeyHashes: Set<PublicKeyPin>
    /// Whether invalid chains (self-signed, expired, unknown issuer, wrong name) are accepted.
    /// With domain validation this is accepted only together with pins. Default false.
    public var allowInvalidCertificates = false
    /// Whether the certificate must name the domain (DNS or IP subject alternative name; the
    /// subject CN is never used). Default true.
    public var validatesDomainName = true

    /// AFNetworking's `defaultPolicy`: no pinning, a valid chain to the system roots (or the
    /// configured trust store), the domain validated.
    public static var `default`: SecurityPolicy { SecurityPolicy(pinningMode: .none) }

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - pinningMode: how the chain is pinned.
    ///   - pinnedCertificates: the pinned certificates (see ``certificates(inDirectory:)``).
    ///   - pinnedPublicKeyHashes: curl-style public-key pins, for `publicKey` mode.
    public init(pinningMode: PinningMode, pinnedCertificates: Set<Certificate> = [], pinnedPublicKeyHashes: Set<PublicKeyPin> = []) {
        self.pinningMode = pinningMode
        self.pinnedCertificates = pinnedCertificates
        self.pinnedPublicKeyHashes = pinnedPublicKeyHashes
    }

    /// Every certificate in the `.pem`, `.crt`, `.cer` and `.der` files of `directory`: the
    /// Linux stand-in for AFNetworking's `certificatesInBundle:`.
    ///
    /// - Parameter directory: the folder to read (not its subfolders).
    /// - Returns: the distinct certificates found; empty for an empty folder.
    /// - Throws: ``CertificateError`` naming the folder or the first file that cannot be read.
    public static func certificates(inDirectory directory: URL) throws(CertificateError) -> Set<Certificate> {
        Set(try Certificate.certificates(inDirectory: directory))
    }

    /// Accepts or refuses `trust` for `domain` (the protocol's entry point; see the rules above).
    ///
    /// - Parameters:
    ///   - trust: the server's chain and the default evaluation.
    ///   - domain: the host the request is for.
    /// - Throws: ``ServerTrustError``: `refused` for the invalid configuration of rule 1,
    ///   `untrusted` with the ``TrustFailure`` for an invalid chain, `pinningMismatch` when the
    ///   pins do not match.
    public func evaluate(_ trust: ServerTrust, forDomain domain: String) throws(ServerTrustError) {
        try evaluate(trust, forDomain: Optional(domain))
    }

    /// Accepts or refuses `trust`; a nil `domain` is AFNetworking's nil domain: no name is
    /// checked, and rule 1 does not apply.
    ///
    /// - Parameters:
    ///   - trust: the server's chain and the default evaluation.
    ///   - domain: the host to check, or nil for none.
    /// - Throws: ``ServerTrustError`` as ``evaluate(_:forDomain:)-(_,String)``.
    public func evaluate(_ trust: ServerTrust, forDomain domain: String?) throws(ServerTrustError) {
        let host = domain ?? trust.host
        if domain != nil, allowInvalidCertificates, validatesDomainName, pinningMode == .none || !hasPins {
            throw ServerTrustError(.refused, host: host, detail: "validating the domain name of an invalid (self-signed) certificate needs pinning: set a pinning mode and pins")
        }
        let policy: TrustPolicy = validatesDomainName ? .tlsServer(host: domain) : .basic
        var validatedChain: [Certificate] = []
        if !allowInvalidCertificates {
            let validation = trust.verification(policy: policy, anchors: nil)
            if let failure = validation.failure {
                throw .untrusted(failure, host: host)
            }
            validatedChain = validation.chain
        }
        switch pinningMode {
        case .none:
            return
        case .certificate:
            try checkCertificatePins(trust, policy: policy, host: host)
        case .publicKey:
            // Only the validated path counts: a certificate the server merely appended would
            // let anyone with a valid certificate for the name pass by appending the pinned
            // (public) certificate. Without validation, there is no path: the chain as sent.
            try checkPublicKeyPins(in: allowInvalidCertificates ? trust.certificates : validatedChain, host: host)
        }
    }

    /// AFNetworking's `evaluateServerTrust:forDomain:`: true when ``evaluate(_:forDomain:)-(_,String?)`` passes.
    ///
    /// - Parameters:
    ///   - trust: the server's chain.
    ///   - domain: the host to check, or nil for none.
    /// - Returns: whether the server is trusted.
    public func isTrusted(_ trust: ServerTrust, forDomain domain: String?) -> Bool {
        do {
            try evaluate(trust, forDomain: domain)
            return true
        } catch {
            return false
        }
    }

    /// Whether the mode has something to pin: certificates, or in `publicKey` mode key hashes.
    private var hasPins: Bool {
        !pinnedCertificates.isEmpty || (pinningMode == .publicKey && !pinnedPublicKeyHashes.isEmpty)
    }

    /// Rule 5: re-anchored on the pinned certificates alone, then a byte-equal certificate.
    private func checkCertificatePins(_ trust: ServerTrust, policy: TrustPolicy, host: String) throws(ServerTrustError) {
        let pinned = Self.counted(pinnedCertificates.count, "pinned certificate")
        guard !pinnedCertificates.isEmpty else {
            throw ServerTrustError(.pinningMismatch, host: host, detail: "no pinned certificates")
        }
        let anchored = trust.verification(policy: policy, anchors: Array(pinnedCertificates))
        if let failure = anchored.failure {
            throw ServerTrustError(.pinningMismatch, host: host, trustFailure: failure,
                                   detail: "the chain does not verify against the \(pinned): \(failure)")
        }
        guard anchored.chain.contains(where: pinnedCertificates.contains) else {
            throw ServerTrustError(.pinningMismatch, host: host, detail: "no certificate in the chain matches the \(pinned)")
        }
    }

    /// Rule 6: a key of `chain` among the pinned keys.
    private func checkPublicKeyPins(in chain: [Certificate], host: String) throws(ServerTrustError) {
        let keys = Set(pinnedCertificates.map(\.publicKey.sha256)).union(pinnedPublicKeyHashes.map(\.sha256))
        guard !chain.contains(where: { keys.contains($0.publicKey.sha256) }) else { return }
        throw ServerTrustError(.pinningMismatch, host: host,
                               detail: "no certificate in the chain carries one of the \(Self.counted(keys.count, "pinned public key"))")
    }

    /// `1 pinned certificate`, `2 pinned certificates`.
    private static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
