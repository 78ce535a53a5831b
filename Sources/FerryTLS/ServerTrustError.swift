/// A server trust evaluator's refusal of a server's certificate chain.
///
/// The kinds keep the causes apart: an invalid chain (``TLSErrorKind/untrusted``, with the
/// ``TrustFailure`` that says why), a chain that does not match the pins
/// (``TLSErrorKind/pinningMismatch``), and a policy that refuses outright
/// (``TLSErrorKind/refused``).
public struct ServerTrustError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the evaluator objected to: a stable name for programs and a phrase for people.
    /// An open set: evaluators of your own may add kinds (`extension TLSErrorKind where
    /// Domain == ServerTrustError`).
    public typealias Kind = TLSErrorKind<ServerTrustError>

    /// What the evaluator objected to.
    public let kind: Kind
    /// The host whose certificate was refused.
    public let host: String
    /// Why the chain failed to verify: always set for ``TLSErrorKind/untrusted``; set for
    /// ``TLSErrorKind/pinningMismatch`` when the chain did not verify against the pins.
    public let trustFailure: TrustFailure?
    /// The cause in words, such as "no certificate in the chain matches the 2 pinned certificates".
    public let detail: String

    /// Creates a refusal.
    ///
    /// - Parameters:
    ///   - kind: what the evaluator objected to.
    ///   - host: the host whose certificate was refused.
    ///   - trustFailure: why the chain failed to verify, if it did.
    ///   - detail: the cause in words.
    public init(_ kind: Kind, host: String, trustFailure: TrustFailure? = nil, detail: String = "") {
        self.kind = kind
        self.host = host
        self.trustFailure = trustFailure
        self.detail = detail
    }

    /// The refusal of a chain that failed to verify.
    ///
    /// - Parameters:
    ///   - failure: why it failed.
    ///   - host: the host whose certificate was refused.
    /// - Returns: an ``TLSErrorKind/untrusted`` error carrying `failure`.
    public static func untrusted(_ failure: TrustFailure, host: String) -> ServerTrustError {
        ServerTrustError(.untrusted, host: host, trustFailure: failure)
    }

    /// The refusal in words:
    /// `Server certificate for localhost is not trusted: certificate has expired (CN=localhost,O=Ferry Test, depth 0)`,
    /// `Pinning mismatch for localhost: no certificate in the chain matches the 2 pinned certificates`.
    public var description: String {
        // The detail of a pinning mismatch already quotes the failure; an untrusted chain's
        // failure is the message and a detail only adds to it.
        let cause = switch (trustFailure, detail.isEmpty) {
        case (let failure?, true): failure.description
        case (let failure?, false) where kind == .untrusted: "\(failure); \(detail)"
        case (_, false): detail
        case (nil, true): ""
        }
        let head = switch kind {
        case .untrusted: "Server certificate for \(host) is not trusted"
        case .pinningMismatch: "Pinning mismatch for \(host)"
        case .refused: "Server trust for \(host) refused"
        default: "Server trust for \(host) refused (\(kind.text))"
        }
        return cause.isEmpty ? head : "\(head): \(cause)"
    }
}

/// The kinds of ``ServerTrustError``.
extension TLSErrorKind where Domain == ServerTrustError {
    /// The chain is not valid: an unknown issuer, a self-signed certificate, an expired or
    /// not yet valid one, a hostname mismatch… ``ServerTrustError/trustFailure`` says which.
    public static var untrusted: Self { Self("untrusted", text: "server certificate not trusted") }
    /// The chain is valid (or validity was waived) but matches none of the pinned
    /// certificates or public keys.
    public static var pinningMismatch: Self { Self("pinningMismatch", text: "pinning mismatch") }
    /// A policy refused the server outright: an invalid configuration (invalid certificates
    /// allowed with domain validation but no pins), no evaluator for a host when failing
    /// closed, or an evaluator's own reason in ``ServerTrustError/detail``.
    public static var refused: Self { Self("refused", text: "server trust refused") }
    /// The session's delegate cancelled the server-trust challenge.
    public static var cancelled: Self { Self("cancelled", text: "server trust challenge cancelled") }
}
