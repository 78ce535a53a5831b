// An evaluator written outside Ferry, on the public building blocks alone (this target imports
// Ferry without @testable): TrustPolicy, ServerTrust.verification(policy:anchors:) and the
// chain it builds. It pins the intermediate CA and refuses chains that do not lead through it.
import Ferry
import Testing

/// Accepts a chain that verifies for the host and whose built path contains `pinned`.
struct IntermediatePinEvaluator: ServerTrustEvaluating {
    let pinned: Certificate

    func evaluate(_ trust: ServerTrust, forDomain domain: String) throws(ServerTrustError) {
        let verification = trust.verification(policy: .tlsServer(host: domain), anchors: nil)
        if let failure = verification.failure { throw .untrusted(failure, host: domain) }
        guard verification.chain.contains(pinned) else {
            throw ServerTrustError(.pinningMismatch, host: domain, detail: "the path does not go through the pinned CA")
        }
    }
}

@Suite("Evaluators of one's own, on the public API")
struct CustomEvaluatorTests {
    @Test func theBuiltChainEndsAtTheStoresRoot() throws {
        let trust = try PolicyFixtures.trust("localhost", ["leaf", "intermediate-ca"])
        let verification = trust.verification(policy: .tlsServer(host: "localhost"), anchors: nil)
        #expect(verification.isTrusted)
        #expect(verification.chain == [try PolicyFixtures.certificate("leaf"), try PolicyFixtures.certificate("intermediate-ca"),
                                       try PolicyFixtures.certificate("root-ca")])
    }

    @Test func anchorsAloneAndTheBasicPolicy() throws {
        let trust = try PolicyFixtures.trust("localhost", ["leaf", "intermediate-ca"])
        let intermediate = try PolicyFixtures.certificate("intermediate-ca")
        #expect(trust.verification(policy: .basic, anchors: [intermediate]).isTrusted, "a pinned intermediate anchors")
        #expect(!trust.verification(policy: .basic, anchors: [try PolicyFixtures.certificate("other-ca")]).isTrusted)
        #expect(!trust.verification(policy: .tlsServer(host: "example.com"), anchors: nil).isTrusted, "the name must match")
        #expect(trust.verification(policy: .tlsServer(host: nil), anchors: nil).isTrusted, "no host: no name checked")
    }

    @Test func theEvaluatorAcceptsItsCAAndRefusesTheOther() throws {
        let evaluator = IntermediatePinEvaluator(pinned: try PolicyFixtures.certificate("intermediate-ca"))
        let ours = try PolicyFixtures.trust("localhost", ["leaf", "intermediate-ca"])
        #expect(throws: Never.self) { try evaluator.evaluate(ours, forDomain: "localhost") }
        let theirs = try PolicyFixtures.trust("localhost", ["other-leaf"])
        #expect(throws: ServerTrustError.self) { try evaluator.evaluate(theirs, forDomain: "localhost") }
    }
}
