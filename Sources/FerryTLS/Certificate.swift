import CFerryShims
import COpenSSL
import FoundationEssentials

/// An X.509 certificate, parsed once into plain values.
///
/// A pure value: the OpenSSL objects used to parse it are freed before the initializer returns,
/// so a `Certificate` is `Sendable` and cheap to copy. Two certificates are equal when their
/// DER encodings are byte-equal (what certificate pinning compares).
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER encoding.
    public let derRepresentation: [UInt8]
    /// The subject name as one-line RFC 2253 text, most specific first: `CN=localhost,O=Ferry Test`.
    public let subject: String
    /// The issuer name as one-line RFC 2253 text: `CN=Ferry Test Intermediate CA,O=Ferry Test`.
    public let issuer: String
    /// The DNS names and IP addresses of the subject alternative name extension, in
    /// certificate order; empty when the extension is absent.
    public let subjectAlternativeNames: [SubjectAlternativeName]
    /// The start of the validity period (notBefore).
    public let notValidBefore: Date
    /// The end of the validity period (notAfter).
    public let notValidAfter: Date
    /// The subject's public key.
    public let publicKey: PublicKey
    /// True when the certificate is self-issued (its issuer name is its subject name and its
    /// authority key identifier, if any, matches its own key) and its signature verifies with
    /// its own public key: OpenSSL's `X509_self_signed(cert, 1)`. Roots are self-signed.
    public let isSelfSigned: Bool
    /// SHA-256 of ``derRepresentation``: the fingerprint `openssl x509 -fingerprint -sha256` prints.
    public let sha256Fingerprint: [UInt8]

    /// ``sha256Fingerprint`` in lowercase hexadecimal without separators (64 characters).
    public var sha256FingerprintHex: String { OpenSSLSupport.hex(sha256Fingerprint) }

    /// Parses one DER-encoded certificate.
    ///
    /// - Throws: ``CertificateError/Kind-swift.struct/invalidDER`` when the bytes are not
    ///   exactly one certificate (trailing bytes are refused).
    public init(derEncoded bytes: [UInt8]) throws(CertificateError) {
        OpenSSLSupport.clearErrors()
        let parsed: (x509: OpaquePointer?, consumed: Int) = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let x509 = d2i_X509(nil, &cursor, buffer.count)
            guard let start = buffer.baseAddress, let end = cursor else { return (x509, 0) }
            return (x509, start.distance(to: end))
        }
        guard let x509 = parsed.x509 else {
            let cause = OpenSSLSupport.drainErrors()
            throw CertificateError(.invalidDER, detail: bytes.isEmpty ? "no bytes" : cause)
        }
        defer { X509_free(x509) }
        guard parsed.consumed == bytes.count else {
            throw CertificateError(.invalidDER, detail: "\(bytes.count - parsed.consumed) bytes after the certificate")
        }
        try self.init(x509: x509)
    }

    /// Parses the first `CERTIFICATE` block of PEM text; other blocks (keys, parameters) before
    /// it are skipped.
    ///
    /// - Throws: ``CertificateError/Kind-swift.struct/noCertificate`` when the text holds no
    ///   certificate block, ``CertificateError/Kind-swift.struct/invalidPEM`` when the first one
    ///   is malformed or truncated.
    public init(pemEncoded text: String) throws(CertificateError) {
        let first = try PEMReader.read(text, limit: 1)
        guard let certificate = first.first else {
            throw CertificateError(.noCertificate, detail: "no CERTIFICATE block in the PEM text")
        }
        self = certificate
    }

    /// Extracts every field of `x509`, which the caller keeps and frees.
    init(x509: OpaquePointer) throws(CertificateError) {
        guard let der = OpenSSLSupport.encoded({ i2d_X509(x509, $0) }) else {
            throw CertificateError(.invalidDER, detail: "cannot re-encode: \(OpenSSLSupport.drainErrors())")
        }
        guard let subject = Self.nameText(X509_get_subject_name(x509)),
              let issuer = Self.nameText(X509_get_issuer_name(x509)) else {
            throw CertificateError(.invalidField, detail: "subject or issuer name: \(OpenSSLSupport.drainErrors())")
        }
        guard let notBefore = Self.date(X509_get0_notBefore(x509)),
              let notAfter = Self.date(X509_get0_notAfter(x509)) else {
            throw CertificateError(.invalidField, detail: "validity dates: \(OpenSSLSupport.drainErrors())")
        }
        guard let keyInfo = X509_get_X509_PUBKEY(x509),
              let spki = OpenSSLSupport.encoded({ i2d_X509_PUBKEY(keyInfo, $0) }) else {
            throw CertificateError(.invalidField, detail: "public key: \(OpenSSLSupport.drainErrors())")
        }
        self.derRepresentation = der
        self.subject = subject
        self.issuer = issuer
        self.subjectAlternativeNames = Self.alternativeNames(x509)
        self.notValidBefore = notBefore
        self.notValidAfter = notAfter
        self.publicKey = PublicKey(validatedSPKI: spki)
        self.isSelfSigned = X509_self_signed(x509, 1) == 1
        self.sha256Fingerprint = OpenSSLSupport.sha256(der)
        // X509_self_signed leaves an entry when the signature does not verify.
        OpenSSLSupport.clearErrors()
    }

    /// Certificates are equal when their DER encodings are.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(derRepresentation)
    }

    /// `CN=localhost,O=Ferry Test (issuer: CN=…, sha256 5baf…)`.
    public var description: String {
        "\(subject) (issuer: \(issuer), sha256 \(sha256FingerprintHex))"
    }

    // MARK: - Field extraction

    private static func nameText(_ name: OpaquePointer?) -> String? {
        guard let name else { return nil }
        return OpenSSLSupport.printed { bio in X509_NAME_print_ex(bio, name, 0, cferry_xn_flag_rfc2253()) }
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    private static func alternativeNames(_ x509: OpaquePointer) -> [SubjectAlternativeName] {
        guard let raw = X509_get_ext_d2i(x509, NID_subject_alt_name, nil, nil) else {
            OpenSSLSupport.clearErrors()
            return []
        }
        let names = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(names) }
        var result: [SubjectAlternativeName] = []
        for index in 0..<OPENSSL_sk_num(names) {
            guard let entry = OPENSSL_sk_value(names, index)?.assumingMemoryBound(to: GENERAL_NAME.self) else {
                continue
            }
            switch entry.pointee.type {
            case GEN_DNS:
                if let text = entry.pointee.d.dNSName.map(bytes(of:)) {
                    result.append(.dnsName(String(decoding: text, as: UTF8.self)))
                }
            case GEN_IPADD:
                if let address = entry.pointee.d.iPAddress.map(bytes(of:)).flatMap(OpenSSLSupport.ipAddressText) {
                    result.append(.ipAddress(address))
                }
            default:
                continue
            }
        }
        return result
    }

    private static func bytes(of string: UnsafeMutablePointer<ASN1_STRING>) -> [UInt8] {
        let count = Int(ASN1_STRING_length(string))
        guard count > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: count))
    }
}
