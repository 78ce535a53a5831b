import FerryTLS
import FoundationEssentials

/// A policy encodes its mode, flags and pins (AFNetworking's `NSSecureCoding`): pinned
/// certificates as base64 DER, key pins in curl's form.
extension SecurityPolicy: Codable {
    private enum CodingKeys: String, CodingKey {
        case pinningMode, pinnedCertificates, pinnedPublicKeyHashes, allowInvalidCertificates, validatesDomainName
    }

    /// Decodes a policy encoded by ``encode(to:)``.
    ///
    /// - Throws: `DecodingError` for a missing field or a certificate that does not parse.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let encoded = try container.decode([Data].self, forKey: .pinnedCertificates)
        var certificates: Set<Certificate> = []
        for der in encoded {
            do {
                certificates.insert(try Certificate(derEncoded: Array(der)))
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .pinnedCertificates, in: container, debugDescription: error.description)
            }
        }
        self.init(
            pinningMode: try container.decode(PinningMode.self, forKey: .pinningMode),
            pinnedCertificates: certificates,
            pinnedPublicKeyHashes: try container.decode(Set<PublicKeyPin>.self, forKey: .pinnedPublicKeyHashes)
        )
        allowInvalidCertificates = try container.decode(Bool.self, forKey: .allowInvalidCertificates)
        validatesDomainName = try container.decode(Bool.self, forKey: .validatesDomainName)
    }

    /// Encodes the mode, the flags and the pins; certificates in a stable order (by SHA-256).
    ///
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pinningMode, forKey: .pinningMode)
        let sorted = pinnedCertificates.sorted { $0.sha256Fingerprint.lexicographicallyPrecedes($1.sha256Fingerprint) }
        try container.encode(sorted.map { Data($0.derRepresentation) }, forKey: .pinnedCertificates)
        try container.encode(pinnedPublicKeyHashes.sorted { $0.description < $1.description }, forKey: .pinnedPublicKeyHashes)
        try container.encode(allowInvalidCertificates, forKey: .allowInvalidCertificates)
        try container.encode(validatesDomainName, forKey: .validatesDomainName)
    }
}
