import FerryTLS
import FoundationEssentials

/// A public-key pin: the SHA-256 of a SubjectPublicKeyInfo, written as curl's `--pinnedpubkey`
/// and HPKP write it, `sha256//` followed by the base64 digest.
///
/// Get one from a certificate with ``init(_:)-(PublicKey)`` (`certificate.publicKey`), or with
/// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der |
/// openssl dgst -sha256 -binary | base64`. Pin the keys you control and keep a backup pin for
/// a key you have not deployed yet, so a key change never locks clients out.
public struct PublicKeyPin: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The SHA-256 digest of the DER SubjectPublicKeyInfo (32 bytes).
    public let sha256: [UInt8]

    /// The pin of `key`.
    ///
    /// - Parameter key: the public key to pin.
    public init(_ key: PublicKey) {
        self.sha256 = key.sha256
    }

    /// Reads one pin in curl's form, `sha256//` and 44 characters of standard, padded base64
    /// (surrounding white space is ignored).
    ///
    /// - Parameter text: the pin, such as `sha256//AbCd…=`.
    /// - Throws: ``CertificateError/Kind-swift.struct/invalidPin`` naming what is wrong: no
    ///   `sha256//` prefix, bad base64, or a digest that is not 32 bytes.
    public init(_ text: String) throws(CertificateError) {
        let pin = Self.trimmed(text)
        guard pin.hasPrefix(Self.prefix) else {
            throw CertificateError(.invalidPin, detail: "\(Self.quoted(pin)) does not start with \(Self.prefix)")
        }
        let encoded = String(pin.dropFirst(Self.prefix.count))
        guard let digest = Data(base64Encoded: encoded) else {
            throw CertificateError(.invalidPin, detail: "\(Self.quoted(pin)): the digest is not valid base64")
        }
        guard digest.count == 32 else {
            throw CertificateError(.invalidPin, detail: "\(Self.quoted(pin)): the digest is \(digest.count) bytes, a SHA-256 digest is 32")
        }
        self.sha256 = Array(digest)
    }

    /// Reads a list of pins separated by `;`, as curl's `--pinnedpubkey`
    /// (`sha256//A…=;sha256//B…=`).
    ///
    /// - Parameter list: one pin or several; white space around each is ignored.
    /// - Returns: the pins, in order, duplicates kept.
    /// - Throws: ``CertificateError/Kind-swift.struct/invalidPin`` for an empty list or the
    ///   first pin that does not parse.
    public static func pins(fromCurlList list: String) throws(CertificateError) -> [PublicKeyPin] {
        let parts = list.split(separator: ";", omittingEmptySubsequences: false)
        guard !trimmed(list).isEmpty else {
            throw CertificateError(.invalidPin, detail: "no pin given")
        }
        var pins: [PublicKeyPin] = []
        for part in parts {
            pins.append(try PublicKeyPin(String(part)))
        }
        return pins
    }

    /// True when `key` is the pinned key.
    ///
    /// - Parameter key: a certificate's public key.
    public func matches(_ key: PublicKey) -> Bool {
        key.sha256 == sha256
    }

    /// `sha256//` and the base64 digest.
    public var description: String {
        Self.prefix + Data(sha256).base64EncodedString()
    }

    /// Decodes the curl form.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the text is not a pin.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the curl form.
    ///
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static let prefix = "sha256//"

    /// `text` without white space (newlines included) at either end.
    private static func trimmed(_ text: String) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
              let last = text.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(text[first...last])
    }

    /// The text quoted, cut to 80 characters: pins come from command lines and files.
    private static func quoted(_ text: String) -> String {
        text.count > 80 ? "\"\(text.prefix(80))…\"" : "\"\(text)\""
    }
}

/// The kind of a malformed pin.
extension CertificateError.Kind {
    /// A public-key pin is not `sha256//` followed by the base64 of 32 bytes.
    public static var invalidPin: Self { Self("invalidPin", text: "invalid public-key pin") }
}
