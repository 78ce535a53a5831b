import COpenSSL
import FoundationEssentials

/// A client certificate and its private key, presented when a server asks for one (mutual
/// TLS). Loaded and checked once: the key must belong to the certificate.
///
/// Immutable and `Sendable`; every connection of a session shares the same key material.
/// Two identities are equal only when they are the same loaded object.
public final class ClientIdentity: @unchecked Sendable, Hashable, CustomStringConvertible {
    // Safety: the OpenSSL objects are never mutated after init; OpenSSL's reference counts
    // are atomic, so connections on several loops may up-reference them at once.
    /// The client certificate.
    public let certificate: Certificate
    /// Intermediate certificates sent after ``certificate``, in order.
    public let intermediates: [Certificate]
    let x509: OpaquePointer
    let chain: [OpaquePointer]
    let privateKey: OpaquePointer

    /// Loads a PEM certificate (optionally followed by its intermediates) and a PEM private
    /// key, curl's `--cert FILE --key FILE`. The key may sit in the certificate file itself.
    ///
    /// - Parameters:
    ///   - certificateFile: PEM file whose first certificate is the client certificate; more
    ///     certificates after it are sent as intermediates.
    ///   - keyFile: PEM private key (PKCS#8, or traditional RSA/EC); `nil` reads the key from
    ///     `certificateFile`.
    ///   - password: Passphrase of an encrypted key.
    /// - Throws: ``CertificateError`` naming the file: unreadable, no certificate, no usable
    ///   key (``CertificateError/Kind-swift.struct/invalidKey``), or a key that does not
    ///   match the certificate (``CertificateError/Kind-swift.struct/keyMismatch``).
    public convenience init(certificateFile: URL, keyFile: URL? = nil, password: String? = nil) throws(CertificateError) {
        let certificates = try Certificate.certificates(inFile: certificateFile)
        let keyURL = keyFile ?? certificateFile
        let keyBytes = try CertificateFiles.read(keyURL)
        OpenSSLSupport.clearErrors()
        let key = OpenSSLSupport.withMemoryBIO(over: keyBytes) { bio -> OpaquePointer? in
            if let password {
                return password.withCString { PEM_read_bio_PrivateKey(bio, nil, nil, UnsafeMutableRawPointer(mutating: $0)) }
            }
            // Without a password an encrypted key must fail, not ask on the terminal (OpenSSL's
            // default when no callback is given).
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        } ?? nil
        guard let key else {
            throw CertificateError(.invalidKey, detail: "\(keyURL.path): \(Self.cause())")
        }
        try self.init(certificates: certificates, privateKey: key, source: keyURL.path)
    }

    /// Loads a PKCS#12 (`.p12`/`.pfx`) bundle: certificate, key and any intermediates.
    ///
    /// - Parameters:
    ///   - pkcs12File: The bundle.
    ///   - password: Its password (empty for none).
    /// - Throws: ``CertificateError`` naming the file: unreadable, not PKCS#12, a wrong
    ///   password (``CertificateError/Kind-swift.struct/invalidKey``), or no certificate or key.
    public convenience init(pkcs12File: URL, password: String) throws(CertificateError) {
        let bytes = try CertificateFiles.read(pkcs12File)
        OpenSSLSupport.clearErrors()
        let parsed: (key: OpaquePointer?, cert: OpaquePointer?, extra: OpaquePointer?)? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let bundle = d2i_PKCS12(nil, &cursor, buffer.count) else { return nil }
            defer { PKCS12_free(bundle) }
            var key: OpaquePointer?
            var cert: OpaquePointer?
            var extra: OpaquePointer?
            guard PKCS12_parse(bundle, password, &key, &cert, &extra) == 1 else { return (nil, nil, nil) }
            return (key, cert, extra)
        }
        guard let parsed else {
            throw CertificateError(.invalidDER, detail: "\(pkcs12File.path): not a PKCS#12 file: \(Self.cause())")
        }
        defer {
            if let cert = parsed.cert { X509_free(cert) }
            if let extra = parsed.extra { OPENSSL_sk_pop_free(extra, Self.freeX509) }
        }
        guard let key = parsed.key else {
            throw CertificateError(.invalidKey, detail: "\(pkcs12File.path): wrong password or unreadable bundle: \(Self.cause())")
        }
        guard let cert = parsed.cert else {
            EVP_PKEY_free(key)
            throw CertificateError(.noCertificate, detail: "\(pkcs12File.path): the bundle holds no certificate")
        }
        var certificates: [Certificate] = []
        do {
            certificates.append(try Certificate(x509: cert))
            if let extra = parsed.extra {
                for index in 0..<OPENSSL_sk_num(extra) {
                    guard let next = OPENSSL_sk_value(extra, index) else { continue }
                    certificates.append(try Certificate(x509: OpaquePointer(next)))
                }
            }
        } catch {
            EVP_PKEY_free(key)
            throw CertificateError(error.kind, detail: "\(pkcs12File.path): \(error.detail)")
        }
        try self.init(certificates: certificates, privateKey: key, source: pkcs12File.path)
    }

    /// Takes ownership of `privateKey`; frees it when the check fails.
    private init(certificates: [Certificate], privateKey: OpaquePointer, source: String) throws(CertificateError) {
        guard let first = certificates.first else {
            EVP_PKEY_free(privateKey)
            throw CertificateError(.noCertificate, detail: source)
        }
        var objects: [OpaquePointer] = []
        for certificate in certificates {
            guard let object = certificate.makeX509() else {
                objects.forEach { X509_free($0) }
                EVP_PKEY_free(privateKey)
                throw CertificateError(.invalidDER, detail: "\(source): \(Self.cause())")
            }
            objects.append(object)
        }
        guard X509_check_private_key(objects[0], privateKey) == 1 else {
            objects.forEach { X509_free($0) }
            EVP_PKEY_free(privateKey)
            throw CertificateError(.keyMismatch, detail: "\(source): the private key does not belong to \(first.subject)")
        }
        OpenSSLSupport.clearErrors()
        self.certificate = first
        self.intermediates = Array(certificates.dropFirst())
        self.x509 = objects[0]
        self.chain = Array(objects.dropFirst())
        self.privateKey = privateKey
    }

    deinit {
        X509_free(x509)
        chain.forEach { X509_free($0) }
        EVP_PKEY_free(privateKey)
    }

    /// Identities are equal when they are the same object.
    public static func == (lhs: ClientIdentity, rhs: ClientIdentity) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The certificate's subject.
    public var description: String { "ClientIdentity(\(certificate.subject))" }

    // MARK: - Helpers

    private static let freeX509: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        if let pointer { X509_free(OpaquePointer(pointer)) }
    }

    private static func cause() -> String {
        let text = OpenSSLSupport.drainErrors()
        return text.isEmpty ? "no further detail from OpenSSL" : text
    }
}

/// The kinds of ``CertificateError`` a ``ClientIdentity`` adds.
extension CertificateError.Kind {
    /// No private key could be read: absent, malformed, or encrypted with another password.
    public static var invalidKey: Self { Self("invalidKey", text: "unusable private key") }
    /// The private key does not belong to the certificate.
    public static var keyMismatch: Self { Self("keyMismatch", text: "private key does not match the certificate") }
}

extension Certificate {
    /// A fresh OpenSSL object for this certificate (the caller frees it), or nil when OpenSSL
    /// cannot parse the DER it produced (out of memory).
    func makeX509() -> OpaquePointer? {
        derRepresentation.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
    }
}
