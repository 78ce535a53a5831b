// The server certificates of Tests/TestSupport/Certificates a TLS test server can present.

/// A server certificate of the committed test set (see `Certificates/README.md`), with the
/// chain a server would send for it and its private key file.
public enum TestServerCertificate: String, CaseIterable, Sendable {
    /// The good leaf: `localhost`, `127.0.0.1`, `::1`, issued by the intermediate CA.
    case leaf
    /// The leaf re-issued with the same key (`leaf.key`): same public-key pin, other fingerprint.
    case leafSameKey = "leaf-same-key"
    /// A leaf for localhost that expired in 2001.
    case expired
    /// A leaf for localhost valid from 2090.
    case notYetValid = "not-yet-valid"
    /// A leaf for `wrong.example` only.
    case wrongHost = "wrong-host"
    /// A leaf for `*.localhost`.
    case wildcard
    /// A leaf for localhost issued by the unrelated `other-ca.pem`.
    case otherLeaf = "other-leaf"
    /// Self-signed, `localhost` only in the common name.
    case selfSignedCNOnly = "self-signed-cn-only"
    /// Self-signed, `localhost` in the common name and the SAN.
    case selfSignedSAN = "self-signed-san"
    /// Self-signed, without any name.
    case selfSignedNoNames = "self-signed-no-names"

    /// Whether `intermediate-ca.pem` issued it (and so belongs after it in the chain).
    public var isIssuedByIntermediate: Bool {
        switch self {
        case .leaf, .leafSameKey, .expired, .notYetValid, .wrongHost, .wildcard: true
        case .otherLeaf, .selfSignedCNOnly, .selfSignedSAN, .selfSignedNoNames: false
        }
    }

    /// The certificate file, e.g. `"leaf.pem"`.
    public var certificateFile: String { "\(rawValue).pem" }

    /// The private key file: the leaf's own, except ``leafSameKey`` which shares `leaf.key`.
    public var privateKeyFile: String { self == .leafSameKey ? "leaf.key" : "\(rawValue).key" }

    /// The files a server sends, leaf first: the certificate, then `intermediate-ca.pem` when
    /// the intermediate issued it and `includingIntermediate` is true. Roots are never sent
    /// (RFC 8446 §4.4.2 lets a server omit the trust anchor).
    /// - Parameter includingIntermediate: false simulates a server missing its intermediate.
    /// - Returns: file names in `Tests/TestSupport/Certificates`.
    public func chainFiles(includingIntermediate: Bool = true) -> [String] {
        includingIntermediate && isIssuedByIntermediate ? [certificateFile, "intermediate-ca.pem"] : [certificateFile]
    }
}
