/// A certificate or public key that could not be read or parsed.
///
/// ``detail`` names the cause: the file, and OpenSSL's own error text where it has one, for
/// example `invalidDER: asn1 encoding routines::too long`.
public struct CertificateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong: a stable name for programs and a phrase for people. An open set; the
    /// kinds are the static members below.
    public typealias Kind = TLSErrorKind<CertificateError>

    /// What was wrong.
    public let kind: Kind
    /// The cause in words: a file path, OpenSSL's error-queue text, or both.
    public let detail: String

    /// Creates an error of `kind` with `detail` naming the cause.
    public init(_ kind: Kind, detail: String = "") {
        self.kind = kind
        self.detail = detail
    }

    /// `invalid DER encoding: asn1 encoding routines::too long`.
    public var description: String {
        detail.isEmpty ? kind.text : "\(kind.text): \(detail)"
    }
}

/// The kinds of ``CertificateError``.
extension CertificateError.Kind {
    /// The bytes are not one DER-encoded X.509 certificate (or SubjectPublicKeyInfo), or have
    /// bytes after it.
    public static var invalidDER: Self { Self("invalidDER", text: "invalid DER encoding") }
    /// A `CERTIFICATE` PEM block is malformed: bad base64, a missing end line, or bad DER inside.
    public static var invalidPEM: Self { Self("invalidPEM", text: "invalid PEM encoding") }
    /// The input holds no certificate at all (empty, or only other PEM blocks such as a key).
    public static var noCertificate: Self { Self("noCertificate", text: "no certificate found") }
    /// A file or directory could not be read.
    public static var unreadableFile: Self { Self("unreadableFile", text: "unreadable file") }
    /// The certificate parsed but one of its fields could not be extracted.
    public static var invalidField: Self { Self("invalidField", text: "unreadable certificate field") }
}
