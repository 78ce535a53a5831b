import Ferry

/// curl's `--pinnedpubkey`: the public key of the server's LEAF certificate must match one of
/// the pins.
///
/// Unlike ``SecurityPolicy``'s public-key mode, which accepts a pinned key anywhere in the
/// chain, curl compares the leaf's SubjectPublicKeyInfo only. Without `-k` the chain must
/// also pass the default evaluation (a valid chain to the trust store naming the host), as
/// curl verifies the peer before it looks at the pin.
struct LeafKeyPinning: ServerTrustEvaluating {
    /// The accepted keys' digests; one match is enough (curl's backup pins).
    let pins: [PublicKeyPin]
    /// Whether the default evaluation must pass first (false with `-k`, or when a
    /// ``SecurityPolicy`` in front already judged the chain).
    let requiresTrustedChain: Bool

    /// Accepts the trust when the leaf's key is pinned (and, if required, the chain is trusted).
    /// - Throws: ``ServerTrustError`` `.untrusted` for a chain that fails the default
    ///   evaluation, `.pinningMismatch` for a leaf whose key matches no pin.
    func evaluate(_ trust: ServerTrust, forDomain domain: String) throws(ServerTrustError) {
        if requiresTrustedChain, let failure = trust.defaultEvaluationFailure {
            throw .untrusted(failure, host: trust.host)
        }
        guard let leaf = trust.certificates.first else {
            throw ServerTrustError(.pinningMismatch, host: trust.host, detail: "the server sent no certificate")
        }
        guard pins.contains(where: { $0.matches(leaf.publicKey) }) else {
            throw ServerTrustError(
                .pinningMismatch, host: trust.host,
                detail: "public key does not match pinned public key (the leaf's is \(leaf.publicKey.pin))")
        }
    }
}
