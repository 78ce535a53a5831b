import Ferry
import Testing

@Suite("DefaultTrustEvaluator")
struct DefaultTrustEvaluatorTests {
    @Test("passes a chain trusted by default")
    func passes() throws {
        let trust = try PolicyFixtures.trust("localhost", PolicyCase.site)
        try DefaultTrustEvaluator().evaluate(trust, forDomain: "localhost")
        try DefaultTrustEvaluator().evaluate(trust, forDomain: "::1")
    }

    @Test("throws untrusted with the failure otherwise", arguments: [
        (["expired", "intermediate-ca"], "localhost", TrustFailure.Reason.expired),
        (["leaf"], "localhost", .unknownIssuer),
        (["self-signed-san"], "localhost", .selfSigned),
        (["leaf", "intermediate-ca"], "wrong.example", .hostnameMismatch),
    ])
    func fails(chain: [String], domain: String, reason: TrustFailure.Reason) throws {
        let trust = try PolicyFixtures.trust("localhost", chain)
        let error = #expect(throws: ServerTrustError.self) { try DefaultTrustEvaluator().evaluate(trust, forDomain: domain) }
        #expect(error?.kind == .untrusted)
        #expect(error?.host == domain)
        #expect(error?.trustFailure?.reason == reason)
        if domain == trust.host {
            #expect(error?.trustFailure == trust.defaultEvaluationFailure)
        }
    }
}
