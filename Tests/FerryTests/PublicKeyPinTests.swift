import Ferry
import Foundation
import Testing

@Suite("PublicKeyPin")
struct PublicKeyPinTests {
    /// `openssl x509 -in leaf.pem -pubkey -noout | openssl pkey -pubin -outform der |
    /// openssl dgst -sha256 -binary | base64` gives the same text as `PublicKey.pin`.
    @Test("a pin reads back what PublicKey.pin writes")
    func roundTrip() throws {
        let key = try PolicyFixtures.certificate("leaf").publicKey
        let pin = try PublicKeyPin(key.pin)
        #expect(pin == PublicKeyPin(key))
        #expect(pin.description == key.pin)
        #expect(pin.matches(key))
        #expect(!pin.matches(try PolicyFixtures.certificate("root-ca").publicKey))
        #expect(try PublicKeyPin("  \(key.pin)\n") == pin)
    }

    @Test("several pins separated by ';'")
    func list() throws {
        let leaf = try PolicyFixtures.certificate("leaf").publicKey.pin
        let root = try PolicyFixtures.certificate("root-ca").publicKey.pin
        let pins = try PublicKeyPin.pins(fromCurlList: "\(leaf);\(root); \(leaf)")
        #expect(pins.map(\.description) == [leaf, root, leaf])
        #expect(try PublicKeyPin.pins(fromCurlList: leaf).count == 1)
    }

    static let good = "sha256//" + Data(repeating: 1, count: 32).base64EncodedString()

    @Test("malformed pins are refused, saying why", arguments: [
        ("", "no pin given"),
        ("  ", "no pin given"),
        ("sha1//" + Data(repeating: 1, count: 20).base64EncodedString(), "does not start with sha256//"),
        ("SHA256//" + Data(repeating: 1, count: 32).base64EncodedString(), "does not start with sha256//"),
        (Data(repeating: 1, count: 32).base64EncodedString(), "does not start with sha256//"),
        ("sha256//not*base64!", "not valid base64"),
        ("sha256//", "the digest is 0 bytes"),
        ("sha256//" + Data(repeating: 1, count: 31).base64EncodedString(), "the digest is 31 bytes, a SHA-256 digest is 32"),
        ("sha256//" + Data(repeating: 1, count: 48).base64EncodedString(), "the digest is 48 bytes"),
        (good + ";", "does not start with sha256//"),
        (good + ";sha256//AAAA", "the digest is 3 bytes"),
    ])
    func malformed(text: String, cause: String) {
        let error = #expect(throws: CertificateError.self) { try PublicKeyPin.pins(fromCurlList: text) }
        #expect(error?.kind == .invalidPin)
        #expect(error?.detail.contains(cause) == true, "\(error?.detail ?? "")")
    }

    @Test("a pin encodes as its curl text")
    func coding() throws {
        let pin = try PublicKeyPin(Self.good)
        let data = try JSONEncoder().encode([pin])
        #expect(String(decoding: data, as: UTF8.self) == "[\"\(Self.good.replacingOccurrences(of: "/", with: "\\/"))\"]")
        #expect(try JSONDecoder().decode([PublicKeyPin].self, from: data) == [pin])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([PublicKeyPin].self, from: Data(#"["sha256//AAAA"]"#.utf8)) }
    }
}
