import Foundation
import FerryTLS
import Testing

@Suite("Public keys and pins")
struct PublicKeyTests {
    /// `openssl x509 -in leaf.pem -pubkey -noout | openssl pkey -pubin -outform der
    /// | openssl dgst -sha256 -binary | base64`, computed once (see the folder's README).
    static let leafPin = "sha256//D3JNHUxGeyN/cZPTbVvvRcf1qNv4ipbbbPDJIayHzYs="

    @Test("the pin is curl's sha256//BASE64 of the SPKI DER")
    func pinFormat() throws {
        let key = try TestCertificates.certificate("leaf").publicKey
        #expect(key.pin == Self.leafPin)
        #expect(key.description == Self.leafPin)
        #expect(key.sha256Hex.count == 64)
        #expect(Data(key.sha256).base64EncodedString() == String(Self.leafPin.dropFirst("sha256//".count)))
    }

    @Test("a leaf re-issued with the same key: new fingerprint, same public key and pin")
    func sameKeyReissue() throws {
        let leaf = try TestCertificates.certificate("leaf")
        let reissued = try TestCertificates.certificate("leaf-same-key")
        #expect(leaf != reissued)
        #expect(leaf.sha256Fingerprint != reissued.sha256Fingerprint)
        #expect(leaf.publicKey == reissued.publicKey)
        #expect(reissued.publicKey.pin == Self.leafPin)
        #expect(try TestCertificates.certificate("other-leaf").publicKey != leaf.publicKey)
    }

    @Test("every certificate of the suite has its own key except the same-key re-issue")
    func distinctKeys() throws {
        let keys = try TestCertificates.names.map { try TestCertificates.certificate($0).publicKey }
        #expect(Set(keys).count == TestCertificates.names.count - 1)
    }

    @Test("a PublicKey round-trips through its SPKI DER")
    func spkiRoundTrip() throws {
        let key = try TestCertificates.certificate("client").publicKey
        let copy = try PublicKey(subjectPublicKeyInfoDER: key.subjectPublicKeyInfoDER)
        #expect(copy == key)
        #expect(copy.pin == key.pin)
    }

    @Test("malformed SPKI bytes are invalidDER")
    func malformedSPKI() throws {
        let spki = try TestCertificates.certificate("leaf").publicKey.subjectPublicKeyInfoDER
        for bytes in [[], [0x30, 0x03, 0x01, 0x02, 0x03], Array(spki.dropLast(5)), spki + [0]] as [[UInt8]] {
            let error = #expect(throws: CertificateError.self) { try PublicKey(subjectPublicKeyInfoDER: bytes) }
            #expect(error?.kind == .invalidDER)
        }
    }
}
