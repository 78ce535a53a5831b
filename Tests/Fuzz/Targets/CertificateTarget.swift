import FerryTLS

extension FuzzTarget {
    /// Certificates as a caller or a file hands them over: PEM text (one or many blocks) and
    /// DER bytes, each read by OpenSSL through Ferry's loaders; what loads is described.
    static let certificate = FuzzTarget(
        name: "certificate",
        summary: "PEM (several blocks, junk between them) and DER certificates, through Ferry's loaders and OpenSSL"
    ) { input in
        let text = String(decoding: input, as: UTF8.self)
        if let certificates = try? Certificate.certificates(fromPEM: text) {
            for certificate in certificates { _ = certificate.description }
        }
        if let certificate = try? Certificate(derEncoded: Array(input)) {
            _ = certificate.description
        }
    }
}
