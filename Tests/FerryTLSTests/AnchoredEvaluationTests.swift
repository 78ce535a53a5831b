import COpenSSL
import FerryTLS
import Testing

/// `evaluate(anchoredOn:validatingHost:)`: the pinned certificates alone are the anchors, any
/// of them may end the chain (a leaf, an intermediate, a root), and the trust store is ignored.
@Suite("ServerTrust anchored on given certificates")
struct AnchoredEvaluationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let host: String
        let chain: [String]
        let anchors: [String]
        let validatingHost: Bool
        let outcome: TrustOutcome
        var testDescription: String { "\(name): \(chain) on \(anchors) → \(outcome)" }

        init(_ name: String, host: String = "localhost", chain: [String] = ["leaf", "intermediate-ca"],
             anchors: [String], validatingHost: Bool = true, _ outcome: TrustOutcome) {
            self.name = name
            self.host = host
            self.chain = chain
            self.anchors = anchors
            self.validatingHost = validatingHost
            self.outcome = outcome
        }
    }

    static let cases: [Case] = [
        Case("the leaf alone", anchors: ["leaf"], .trusted),
        Case("the intermediate alone", anchors: ["intermediate-ca"], .trusted),
        Case("the root", anchors: ["root-ca"], .trusted),
        Case("the whole chain", anchors: ["leaf", "intermediate-ca", "root-ca"], .trusted),
        Case("the leaf, sent without intermediate", chain: ["leaf"], anchors: ["leaf"], .trusted),
        Case("the intermediate, sent without it", chain: ["leaf"], anchors: ["intermediate-ca"], .trusted),
        Case("the root, sent without intermediate", chain: ["leaf"], anchors: ["root-ca"],
             .fails(.unknownIssuer, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, depth: 0)),
        Case("an unrelated root", anchors: ["other-ca"],
             .fails(.unknownIssuer, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, depth: 1)),
        Case("an unrelated self-signed leaf", anchors: ["self-signed-san"],
             .fails(.unknownIssuer, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, depth: 1)),
        Case("a leaf of the same key, other bytes", anchors: ["leaf-same-key"],
             .fails(.unknownIssuer, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, depth: 1)),
        Case("nothing", anchors: [],
             .fails(.unknownIssuer, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, depth: 1)),
        Case("the leaf, wrong host", host: "wrong.example", anchors: ["leaf"],
             .fails(.hostnameMismatch, X509_V_ERR_HOSTNAME_MISMATCH, depth: 0)),
        Case("the leaf, wrong host not checked", host: "wrong.example", anchors: ["leaf"], validatingHost: false, .trusted),
        Case("an expired leaf anchored on itself", chain: ["expired", "intermediate-ca"], anchors: ["expired"],
             .fails(.expired, X509_V_ERR_CERT_HAS_EXPIRED, depth: 0)),
        Case("an expired leaf under a pinned root", chain: ["expired", "intermediate-ca"], anchors: ["root-ca"],
             .fails(.expired, X509_V_ERR_CERT_HAS_EXPIRED, depth: 0)),
        Case("a self-signed leaf on itself", chain: ["self-signed-san"], anchors: ["self-signed-san"], .trusted),
        Case("a CN-only self-signed leaf on itself", chain: ["self-signed-cn-only"], anchors: ["self-signed-cn-only"],
             .fails(.hostnameMismatch, X509_V_ERR_HOSTNAME_MISMATCH, depth: 0)),
        Case("a CN-only self-signed leaf, host not checked", chain: ["self-signed-cn-only"], anchors: ["self-signed-cn-only"],
             validatingHost: false, .trusted),
        Case("a nameless self-signed leaf, host not checked", chain: ["self-signed-no-names"], anchors: ["self-signed-no-names"],
             validatingHost: false, .trusted),
    ]

    @Test("anchored evaluation", arguments: cases)
    func anchored(_ testCase: Case) throws {
        // The trust store trusts the other CA only: anchored evaluation must not consult it.
        let store = try TrustStore(certificates: [TestCertificates.certificate("other-ca")])
        let trust = try TrustFixtures.trust(testCase.host, testCase.chain, store: store)
        let anchors = try TrustFixtures.chain(testCase.anchors)
        testCase.outcome.check(trust.evaluate(anchoredOn: anchors, validatingHost: testCase.validatingHost))
    }

    @Test("the trust store plays no part in anchored evaluation")
    func storeIgnored() throws {
        let trust = try TrustFixtures.trust("localhost", ["other-leaf"], store: TrustStore(certificates: [TestCertificates.certificate("other-ca")]))
        #expect(trust.isTrustedByDefault)
        #expect(trust.evaluate(anchoredOn: [try TestCertificates.certificate("root-ca")], validatingHost: true)?.reason == .unknownIssuer)
        #expect(trust.evaluate(anchoredOn: [try TestCertificates.certificate("other-leaf")], validatingHost: true) == nil)
    }
}
