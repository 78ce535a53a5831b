import Ferry
import Foundation
import Testing

/// What AFNetworking's matrix lacks: invalid chains under pinning, re-issued keys, backup
/// pins, curl pins, and the error texts.
@Suite("SecurityPolicy beyond AFNetworking")
struct SecurityPolicyTests {
    static let expiredChain = ["expired", "intermediate-ca"]
    static let sameKeyChain = ["leaf-same-key", "intermediate-ca"]
    /// A well-formed pin of no certificate here.
    static let strangerPin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()

    static let cases: [PolicyCase] = [
        // An expired leaf: only pinning with invalid chains allowed lets it through, and then
        // only by key (certificate pinning re-verifies, validity included).
        PolicyCase("X1", "default, expired leaf", chain: expiredChain, .untrusted(.expired)),
        PolicyCase("X2", "key: expired leaf pinned", mode: .publicKey, pins: ["expired"], chain: expiredChain, .untrusted(.expired)),
        PolicyCase("X3", "key: expired leaf pinned, invalid allowed", mode: .publicKey, pins: ["expired"], allowInvalid: true,
                   chain: expiredChain, .passes),
        PolicyCase("X4", "certificate: expired leaf pinned, invalid allowed", mode: .certificate, pins: ["expired"], allowInvalid: true,
                   chain: expiredChain, .pinningMismatch(.expired)),
        PolicyCase("X5", "certificate: root above an expired leaf, invalid allowed", mode: .certificate, pins: ["root-ca"], allowInvalid: true,
                   chain: expiredChain, .pinningMismatch(.expired)),
        PolicyCase("X6", "not yet valid leaf", chain: ["not-yet-valid", "intermediate-ca"], .untrusted(.notYetValid)),
        // A missing intermediate.
        PolicyCase("X7", "default, missing intermediate", chain: ["leaf"], .untrusted(.unknownIssuer)),
        PolicyCase("X8", "certificate: intermediate pinned but not sent", mode: .certificate, pins: ["intermediate-ca"], chain: ["leaf"],
                   .untrusted(.unknownIssuer)),
        PolicyCase("X9", "key: leaf pinned, intermediate missing, invalid allowed", mode: .publicKey, pins: ["leaf"], allowInvalid: true,
                   chain: ["leaf"], .passes),
        PolicyCase("X10", "key: root pinned, intermediate missing, invalid allowed", mode: .publicKey, pins: ["root-ca"], allowInvalid: true,
                   chain: ["leaf"], .pinningMismatch(nil)),
        PolicyCase("X11", "certificate: leaf pinned, intermediate missing, invalid allowed", mode: .certificate, pins: ["leaf"],
                   allowInvalid: true, chain: ["leaf"], .passes),
        PolicyCase("X12", "certificate: intermediate pinned but not sent, invalid allowed", mode: .certificate, pins: ["intermediate-ca"],
                   allowInvalid: true, chain: ["leaf"], .passes),
        // Wildcards: `*.localhost` has one label after the star, which OpenSSL and curl ignore.
        PolicyCase("X13", "default, *.localhost for a.localhost", chain: ["wildcard", "intermediate-ca"], domain: "a.localhost",
                   .untrusted(.hostnameMismatch)),
        PolicyCase("X14", "no domain validation, *.localhost", validatesDomain: false, chain: ["wildcard", "intermediate-ca"],
                   domain: "a.localhost", .passes),
        PolicyCase("X15", "certificate: wildcard leaf pinned, invalid allowed", mode: .certificate, pins: ["wildcard"], allowInvalid: true,
                   chain: ["wildcard", "intermediate-ca"], domain: "a.b.localhost", .pinningMismatch(.hostnameMismatch)),
        // A certificate re-issued with the same key.
        PolicyCase("X16", "key: old leaf pinned, re-issued leaf served", mode: .publicKey, pins: ["leaf"], chain: sameKeyChain, .passes),
        PolicyCase("X17", "certificate: old leaf pinned, re-issued leaf served", mode: .certificate, pins: ["leaf"], chain: sameKeyChain,
                   .pinningMismatch(.unknownIssuer)),
        PolicyCase("X18", "certificate: intermediate pinned, re-issued leaf served", mode: .certificate, pins: ["intermediate-ca"],
                   chain: sameKeyChain, .passes),
        // Key pins in curl's form, backup pins.
        PolicyCase("X19", "curl pin of the leaf", mode: .publicKey, keyPins: ["leaf"], .passes),
        PolicyCase("X20", "a backup pin beside the matching one", mode: .publicKey, keyPins: [strangerPin, "leaf"], .passes),
        PolicyCase("X21", "only pins that match nothing", mode: .publicKey, keyPins: [strangerPin, "other-ca"], .pinningMismatch(nil)),
        PolicyCase("X22", "curl pin and pinned certificate: either may match", mode: .publicKey, pins: ["self-signed-san"],
                   keyPins: ["intermediate-ca"], .passes),
        PolicyCase("X23", "curl pin of the store's root", mode: .publicKey, keyPins: ["root-ca"], .passes),
        PolicyCase("X24", "curl pins only, invalid allowed, domain validated", mode: .publicKey, keyPins: ["self-signed-san"],
                   allowInvalid: true, chain: ["self-signed-san"], .passes),
        PolicyCase("X25", "certificate mode ignores curl pins", mode: .certificate, keyPins: ["leaf"], .pinningMismatch(nil)),
        PolicyCase("X26", "certificate mode with curl pins only, invalid allowed", mode: .certificate, keyPins: ["leaf"], allowInvalid: true,
                   .refused),
        // A pinned certificate appended to a valid chain proves nothing: only the path counts.
        PolicyCase("X27", "key: pinned certificate appended to another valid chain", mode: .publicKey, pins: ["other-ca"],
                   chain: PolicyCase.site + ["other-ca"], .pinningMismatch(nil)),
        PolicyCase("X28", "certificate: pinned certificate appended to another valid chain", mode: .certificate, pins: ["self-signed-san"],
                   chain: PolicyCase.site + ["self-signed-san"], .pinningMismatch(.unknownIssuer)),
        // The domain asked for, not the trust's host, is what is checked.
        PolicyCase("X29", "domain is an IP address of the leaf", domain: "127.0.0.1", .passes),
        PolicyCase("X30", "domain differs from the connected host", host: "127.0.0.1", domain: "wrong.example", .untrusted(.hostnameMismatch)),
        PolicyCase("X31", "client certificate served", chain: ["client", "intermediate-ca"], .untrusted(.invalidCertificate)),
        PolicyCase("X32", "client certificate served, no domain validation", validatesDomain: false, chain: ["client", "intermediate-ca"], .passes),
    ]

    @Test("cases AFNetworking lacks", arguments: cases)
    func evaluation(_ testCase: PolicyCase) throws {
        try testCase.check()
    }

    @Test("errors say what failed in words")
    func messages() throws {
        var policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try PolicyFixtures.certificate("other-ca"), try PolicyFixtures.certificate("self-signed-san")])
        let expired = try PolicyFixtures.trust("localhost", Self.expiredChain)
        #expect(throwsError(policy, expired) == "Server certificate for localhost is not trusted: certificate has expired (CN=localhost,O=Ferry Test, depth 0)")
        let valid = try PolicyFixtures.trust("localhost", PolicyCase.site)
        #expect(throwsError(policy, valid) == "Pinning mismatch for localhost: the chain does not verify against the 2 pinned certificates: unable to get local issuer certificate (CN=Ferry Test Intermediate CA,O=Ferry Test, depth 1)")
        policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try PolicyFixtures.certificate("other-ca")])
        #expect(throwsError(policy, valid) == "Pinning mismatch for localhost: no certificate in the chain carries one of the 1 pinned public key")
        policy.allowInvalidCertificates = true
        policy.pinnedCertificates = []
        #expect(throwsError(policy, valid) == "Server trust for localhost refused: validating the domain name of an invalid (self-signed) certificate needs pinning: set a pinning mode and pins")
    }

    private func throwsError(_ policy: SecurityPolicy, _ trust: ServerTrust) -> String? {
        do {
            try policy.evaluate(trust, forDomain: "localhost")
            return nil
        } catch {
            return error.description
        }
    }

    /// A store holding an intermediate and its root: the validated path still goes up to the
    /// root, so a backup pin of the root's key holds; a store of the intermediate alone ends
    /// the path there (curl's partial chain), where the root's key is not.
    @Test("public-key pins are looked for up to the store's root when it holds one")
    func publicKeyPinsReachTheStoresRoot() throws {
        let root = try PolicyFixtures.certificate("root-ca")
        let intermediate = try PolicyFixtures.certificate("intermediate-ca")
        let chain = try ["leaf", "intermediate-ca"].map(PolicyFixtures.certificate)
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [root])
        let both = ServerTrust(host: "localhost", certificates: chain, trustStore: try TrustStore(certificates: [intermediate, root]))
        #expect(throwsError(policy, both) == nil)
        let intermediateOnly = ServerTrust(host: "localhost", certificates: chain, trustStore: try TrustStore(certificates: [intermediate]))
        #expect(intermediateOnly.isTrustedByDefault)
        #expect(throwsError(policy, intermediateOnly)?.contains("no certificate in the chain carries") == true)
    }

    @Test("a policy is a ServerTrustEvaluating")
    func conformance() throws {
        let evaluator: any ServerTrustEvaluating = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try PolicyFixtures.certificate("leaf")])
        try evaluator.evaluate(try PolicyFixtures.trust("localhost", PolicyCase.site), forDomain: "localhost")
        #expect(throws: ServerTrustError.self) {
            try evaluator.evaluate(try PolicyFixtures.trust("localhost", PolicyCase.otherSite), forDomain: "localhost")
        }
    }
}
