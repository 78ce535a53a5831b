/// What a chain is verified for: Apple's two policies, on OpenSSL.
public enum TrustPolicy: Sendable, Hashable {
    /// The basic X.509 check (Apple's `SecPolicyCreateBasicX509`): signatures, validity
    /// periods, basic constraints and path length, up to a trust anchor. No host, no purpose.
    case basic
    /// A TLS server certificate (Apple's `SecPolicyCreateSSL(true, host)`): the basic check,
    /// plus the TLS-server purpose (extended key usage `serverAuth` where present), plus the
    /// host when there is one (nil checks no name, as Apple's SSL policy with a nil host).
    case tlsServer(host: String?)
}

/// The outcome of verifying a ``ServerTrust`` under a ``TrustPolicy``
/// (``ServerTrust/verification(policy:anchors:)``): the building block evaluators of your own
/// use, as ``DefaultTrustEvaluator`` and `SecurityPolicy` do.
public struct TrustVerification: Sendable {
    /// Why the chain is not trusted; nil when it is.
    public let failure: TrustFailure?
    /// The chain OpenSSL built, leaf first, ending at the anchor it reached (with a store's
    /// root that the server did not send), or where path building stopped. Pins are looked for
    /// here, never in certificates the server merely appended.
    public let chain: [Certificate]

    /// Whether the chain is trusted.
    public var isTrusted: Bool { failure == nil }
}
