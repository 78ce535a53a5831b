import Ferry
import Foundation
import Testing

/// AFNetworking 4's `AFSecurityPolicyTests` matrix on Ferry's certificates. The httpbin.org
/// chain is `leaf` + `intermediate-ca` under `root-ca`; the ADN chain (a valid chain of
/// another site) is `other-leaf` under `other-ca`; `foobar.com.cer`, `AltName.cer` and
/// `NoDomains.cer` are `self-signed-cn-only`, `-san` and `-no-names`; the good domain is
/// `localhost`, the bad one `wrong.example`. Numbers are the test's place in
/// features.md (b); 1–4, 9–10 and 45–46 are not evaluations and have tests of their own.
@Suite("SecurityPolicy: AFNetworking's matrix")
struct SecurityPolicyMatrixTests {
    static let selfSignedCN = ["self-signed-cn-only"]
    static let selfSignedSAN = ["self-signed-san"]
    static let selfSignedNoNames = ["self-signed-no-names"]
    static let chainPins = ["leaf", "intermediate-ca", "root-ca"]

    static let cases: [PolicyCase] = [
        // Default policy
        PolicyCase("AF5", "default, valid chain, no domain", domain: nil, .passes),
        PolicyCase("AF6", "default, valid chain, valid domain", .passes),
        PolicyCase("AF7", "default, self-signed", chain: selfSignedNoNames, domain: nil, .untrusted(.selfSigned)),
        PolicyCase("AF8", "default, chain for another domain", host: "wrong.example", domain: "wrong.example", .untrusted(.hostnameMismatch)),
        // Public-key pinning
        PolicyCase("AF11", "key: leaf pinned", mode: .publicKey, pins: ["leaf"], domain: nil, .passes),
        PolicyCase("AF12", "key: intermediate pinned", mode: .publicKey, pins: ["intermediate-ca"], domain: nil, .passes),
        PolicyCase("AF13", "key: root pinned", mode: .publicKey, pins: ["root-ca"], domain: nil, .passes),
        PolicyCase("AF14", "key: whole chain pinned", mode: .publicKey, pins: chainPins, domain: nil, .passes),
        PolicyCase("AF15", "key: leaf and an unrelated certificate pinned", mode: .publicKey, pins: ["leaf", "self-signed-san"], domain: nil, .passes),
        PolicyCase("AF16", "key: leaf pinned, valid domain", mode: .publicKey, pins: ["leaf"], .passes),
        PolicyCase("AF17", "key: no pins", mode: .publicKey, domain: nil, .pinningMismatch(nil)),
        PolicyCase("AF18", "key: another site's chain", mode: .publicKey, pins: ["leaf"], chain: PolicyCase.otherSite, domain: nil, .pinningMismatch(nil)),
        PolicyCase("AF19", "key: leaf pinned, invalid domain", mode: .publicKey, pins: ["leaf"], domain: "wrong.example", .untrusted(.hostnameMismatch)),
        PolicyCase("AF20", "key: another site's chain, two wrong pins", mode: .publicKey, pins: ["leaf", "self-signed-san"],
                   chain: PolicyCase.otherSite, domain: nil, .pinningMismatch(nil)),
        // Certificate pinning
        PolicyCase("AF23", "certificate: leaf pinned", mode: .certificate, pins: ["leaf"], domain: nil, .passes),
        PolicyCase("AF24", "certificate: intermediate pinned", mode: .certificate, pins: ["intermediate-ca"], domain: nil, .passes),
        PolicyCase("AF25", "certificate: root pinned", mode: .certificate, pins: ["root-ca"], domain: nil, .passes),
        PolicyCase("AF26", "certificate: whole chain pinned", mode: .certificate, pins: chainPins, domain: nil, .passes),
        PolicyCase("AF27", "certificate: leaf and an unrelated certificate pinned", mode: .certificate, pins: ["leaf", "self-signed-san"], domain: nil, .passes),
        PolicyCase("AF28", "certificate: leaf pinned, valid domain", mode: .certificate, pins: ["leaf"], .passes),
        PolicyCase("AF29", "certificate: no pins", mode: .certificate, domain: nil, .pinningMismatch(nil)),
        PolicyCase("AF30", "certificate: another site's chain", mode: .certificate, pins: ["leaf"], chain: PolicyCase.otherSite,
                   domain: nil, .pinningMismatch(.unknownIssuer)),
        PolicyCase("AF31", "certificate: leaf pinned, invalid domain", mode: .certificate, pins: ["leaf"], domain: "wrong.example", .untrusted(.hostnameMismatch)),
        PolicyCase("AF32", "certificate: another site's chain, two wrong pins", mode: .certificate, pins: ["leaf", "self-signed-san"],
                   chain: PolicyCase.otherSite, domain: nil, .pinningMismatch(.unknownIssuer)),
        // Domain-name validation
        PolicyCase("AF33", "no domain validation, invalid domain", validatesDomain: false, domain: "wrong.example", .passes),
        PolicyCase("AF34", "key: self-signed (name in CN) pinned, invalid allowed", mode: .publicKey, pins: selfSignedCN, allowInvalid: true,
                   chain: selfSignedCN, .passes),
        PolicyCase("AF35", "key: self-signed (name in SAN) pinned, invalid allowed", mode: .publicKey, pins: selfSignedSAN, allowInvalid: true,
                   chain: selfSignedSAN, .passes),
        PolicyCase("AF36", "default, invalid domain", domain: "wrong.example", .untrusted(.hostnameMismatch)),
        PolicyCase("AF37", "certificate: self-signed without names pinned, invalid allowed", mode: .certificate, pins: selfSignedNoNames,
                   allowInvalid: true, chain: selfSignedNoNames, .pinningMismatch(.hostnameMismatch)),
        // Self-signed with and without allowInvalidCertificates
        PolicyCase("AF38", "invalid allowed, self-signed, no domain", allowInvalid: true, chain: selfSignedNoNames, domain: nil, .passes),
        PolicyCase("AF39", "key: self-signed pinned, invalid allowed, valid domain", mode: .publicKey, pins: selfSignedCN, allowInvalid: true,
                   chain: selfSignedCN, .passes),
        PolicyCase("AF40", "invalid allowed, no pinning, no domain validation", allowInvalid: true, validatesDomain: false,
                   chain: selfSignedCN, .passes),
        PolicyCase("AF41", "default, self-signed, valid domain", chain: selfSignedCN, .untrusted(.selfSigned)),
        PolicyCase("AF42", "key: no pins, invalid allowed, domain validated", mode: .publicKey, allowInvalid: true, chain: selfSignedCN, .refused),
        PolicyCase("AF43", "no pinning with a pinned certificate, invalid allowed, domain validated", pins: selfSignedCN, allowInvalid: true,
                   chain: selfSignedCN, .refused),
        PolicyCase("AF44", "no pinning, no pins, invalid allowed, domain validated", allowInvalid: true, chain: selfSignedCN, .refused),
    ]

    @Test("AFNetworking's evaluation cases", arguments: cases)
    func evaluation(_ testCase: PolicyCase) throws {
        try testCase.check()
    }

    @Test("AF1-4: the default policy")
    func defaultPolicy() {
        let policy = SecurityPolicy.default
        #expect(policy.pinningMode == .none)
        #expect(!policy.allowInvalidCertificates)
        #expect(policy.validatesDomainName)
        #expect(policy.pinnedCertificates.isEmpty)
        #expect(policy.pinnedPublicKeyHashes.isEmpty)
    }

    @Test("AF9-10: pinned certificates load from a directory")
    func certificatesFromDirectory() throws {
        let certificates = try SecurityPolicy.certificates(inDirectory: PolicyFixtures.directory)
        #expect(certificates.contains(try PolicyFixtures.certificate("leaf")))
        #expect(certificates.count == 14)
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: certificates)
        #expect(policy.pinnedCertificates == certificates)
        #expect(throws: CertificateError.self) {
            try SecurityPolicy.certificates(inDirectory: PolicyFixtures.directory.appendingPathComponent("no-such-folder"))
        }
    }

    @Test("AF45: a copy is independent and equal")
    func copy() throws {
        var original = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try PolicyFixtures.certificate("leaf")])
        original.allowInvalidCertificates = true
        original.validatesDomainName = false
        var copy = original
        #expect(copy == original)
        copy.pinnedCertificates.insert(try PolicyFixtures.certificate("root-ca"))
        #expect(copy != original)
        #expect(original.pinnedCertificates.count == 1)
    }

    @Test("AF46: a policy survives encoding and decoding")
    func coding() throws {
        var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try PolicyFixtures.certificate("leaf"), try PolicyFixtures.certificate("root-ca")])
        policy.pinnedPublicKeyHashes = [PublicKeyPin(try PolicyFixtures.certificate("other-ca").publicKey)]
        policy.allowInvalidCertificates = true
        policy.validatesDomainName = false
        let decoded = try JSONDecoder().decode(SecurityPolicy.self, from: JSONEncoder().encode(policy))
        #expect(decoded == policy)
        #expect(decoded.pinningMode == .publicKey)
        let broken = Data(#"{"pinningMode":"publicKey","pinnedCertificates":["AAAA"],"pinnedPublicKeyHashes":[],"allowInvalidCertificates":false,"validatesDomainName":true}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SecurityPolicy.self, from: broken) }
    }
}
