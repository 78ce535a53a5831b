import COpenSSL
import FoundationEssentials

/// A subject public key, kept as its DER-encoded SubjectPublicKeyInfo (RFC 5280 §4.1.2.7).
///
/// What public-key pinning compares: a certificate re-issued with the same key has a new
/// fingerprint but the same `PublicKey`. Two keys are equal when their SPKI DER bytes are.
public struct PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The DER-encoded SubjectPublicKeyInfo: algorithm identifier and key bits.
    public let subjectPublicKeyInfoDER: [UInt8]
    /// SHA-256 of ``subjectPublicKeyInfoDER`` (HPKP's and curl's pin digest).
    public let sha256: [UInt8]

    /// The pin in curl's `--pinnedpubkey` form: `sha256//` and the base64 of ``sha256``, as
    /// `openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64` prints it.
    public var pin: String { "sha256//" + Data(sha256).base64EncodedString() }

    /// ``sha256`` in lowercase hexadecimal without separators (64 characters).
    public var sha256Hex: String { OpenSSLSupport.hex(sha256) }

    /// Wraps a DER-encoded SubjectPublicKeyInfo after checking that OpenSSL can read it as a key.
    ///
    /// - Throws: ``CertificateError/Kind-swift.struct/invalidDER`` when the bytes are not
    ///   exactly one SubjectPublicKeyInfo of a key type OpenSSL knows.
    public init(subjectPublicKeyInfoDER bytes: [UInt8]) throws(CertificateError) {
        OpenSSLSupport.clearErrors()
        let valid = bytes.withUnsafeBufferPointer { buffer -> Bool in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { return false }
            EVP_PKEY_free(key)
            guard let start = buffer.baseAddress, let end = cursor else { return false }
            return start.distance(to: end) == buffer.count
        }
        guard valid else {
            let cause = OpenSSLSupport.drainErrors()
            throw CertificateError(.invalidDER, detail: cause.isEmpty ? "not exactly one SubjectPublicKeyInfo" : cause)
        }
        self.init(validatedSPKI: bytes)
    }

    /// Wraps SPKI bytes OpenSSL has just produced from a parsed certificate.
    init(validatedSPKI bytes: [UInt8]) {
        self.subjectPublicKeyInfoDER = bytes
        self.sha256 = OpenSSLSupport.sha256(bytes)
    }

    /// Keys are equal when their SubjectPublicKeyInfo DER bytes are.
    public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
        lhs.subjectPublicKeyInfoDER == rhs.subjectPublicKeyInfoDER
    }

    /// Hashes the SubjectPublicKeyInfo DER bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(subjectPublicKeyInfoDER)
    }

    /// The curl-style ``pin``.
    public var description: String { pin }
}
