import COpenSSL
import Foundation
import FerryTLS
import Testing

/// What one evaluation must give: trusted, or exactly this reason, OpenSSL code and depth.
enum TrustOutcome: Sendable, CustomStringConvertible {
    case trusted
    case fails(TrustFailure.Reason, Int32, depth: Int)

    var description: String {
        switch self {
        case .trusted: "trusted"
        case .fails(let reason, let code, let depth): "\(reason) (\(code)) at depth \(depth)"
        }
    }

    /// Checks `failure` against this outcome.
    func check(_ failure: TrustFailure?, sourceLocation: SourceLocation = #_sourceLocation) {
        switch self {
        case .trusted:
            #expect(failure == nil, sourceLocation: sourceLocation)
        case .fails(let reason, let code, let depth):
            #expect(failure?.reason == reason, sourceLocation: sourceLocation)
            #expect(failure?.verifyCode == code, sourceLocation: sourceLocation)
            #expect(failure?.depth == depth, sourceLocation: sourceLocation)
        }
    }
}

@Suite("ServerTrust default evaluation")
struct ServerTrustTests {
    /// One server chain, sent for one host, against the private root.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let host: String
        let chain: [String]
        let outcome: TrustOutcome
        var testDescription: String { "\(name): \(host) → \(outcome)" }
    }

    static let full = ["leaf", "intermediate-ca"]

    static let cases: [Case] = [
        Case(name: "valid chain", host: "localhost", chain: full, outcome: .trusted),
        Case(name: "valid chain, IPv4", host: "127.0.0.1", chain: full, outcome: .trusted),
        Case(name: "valid chain, IPv6", host: "::1", chain: full, outcome: .trusted),
        Case(name: "valid chain, bracketed IPv6", host: "[::1]", chain: full, outcome: .trusted),
        Case(name: "valid chain, trailing dot", host: "localhost.", chain: full, outcome: .trusted),
        Case(name: "valid chain, host in capitals", host: "LocalHost", chain: full, outcome: .trusted),
        Case(name: "root sent too", host: "localhost", chain: full + ["root-ca"], outcome: .trusted),
        Case(name: "unrelated extra certificate", host: "localhost", chain: full + ["other-ca"], outcome: .trusted),
        Case(name: "re-issued leaf, same key", host: "localhost", chain: ["leaf-same-key", "intermediate-ca"], outcome: .trusted),
        Case(name: "missing intermediate", host: "localhost", chain: ["leaf"],
             outcome: .fails(.unknownIssuer, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, depth: 0)),
        Case(name: "expired leaf", host: "localhost", chain: ["expired", "intermediate-ca"],
             outcome: .fails(.expired, X509_V_ERR_CERT_HAS_EXPIRED, depth: 0)),
        Case(name: "not yet valid leaf", host: "localhost", chain: ["not-yet-valid", "intermediate-ca"],
             outcome: .fails(.notYetValid, X509_V_ERR_CERT_NOT_YET_VALID, depth: 0)),
        Case(name: "leaf for another host", host: "localhost", chain: ["wrong-host", "intermediate-ca"],
             outcome: .fails(.hostnameMismatch, X509_V_ERR_HOSTNAME_MISMATCH, depth: 0)),
        Case(name: "wrong DNS name", host: "wrong.example", chain: full,
             outcome: .fails(.hostnameMismatch, X509_V_ERR_HOSTNAME_MISMATCH, depth: 0)),
        Case(name: "wrong IPv4 address", host: "127.0.0.2", chain: full,
             outcome: .fails(.hostnameMismatch, X509_V_ERR_IP_ADDRESS_MISMATCH, depth: 0)),
        Case(name: "wrong IPv6 address", host: "::2", chain: full,
             outcome: .fails(.hostnameMismatch, X509_V_ERR_IP_ADDRESS_MISMATCH, depth: 0)),
        Case(name: "name is a suffix", host: "a.localhost", chain: full,
             outcome: .fails(.hostnameMismatch, X509_V_ERR_HOSTNAME_MISMATCH, depth: 0)),
        // `*.localhost` leaves one label after the star: OpenSSL (and curl) ignore it.
        Case(name: "*.localhost for a.localhost", host: "a.localhost", chain: ["wildcard", "intermediate-ca"],
             outcome: .fails(.hostnameMismatch, X509_V_ERR_HOSTNAME_MISMATCH, depth: 0)),
        Case(name: "*.localhost for a.b.localhost", host: "a.b.localhost", chain: ["wildcard", "intermediate-ca"],
             outcome: .fails(.hostnameMismatch, X509_V_ERR_HOSTNAME_MISMATCH, depth: 0)),
        Case(name: "*.localhost for localhost", host: "localhost", chain: ["wildcard", "intermediate-ca"],
             outcome: .fails(.hostnameMismatch, X509_V_ERR_HOSTNAME_MISMATCH, depth: 0)),
        Case(name: "self-signed, name in SAN", host: "localhost", chain: ["self-signed-san"],
             outcome: .fails(.selfSigned, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, depth: 0)),
        Case(name: "self-signed, name in CN only", host: "localhost", chain: ["self-signed-cn-only"],
             outcome: .fails(.selfSigned, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, depth: 0)),
        Case(name: "self-signed, no names", host: "localhost", chain: ["self-signed-no-names"],
             outcome: .fails(.selfSigned, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, depth: 0)),
        Case(name: "other CA, root not sent", host: "localhost", chain: ["other-leaf"],
             outcome: .fails(.unknownIssuer, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, depth: 0)),
        Case(name: "other CA, root sent", host: "localhost", chain: ["other-leaf", "other-ca"],
             outcome: .fails(.selfSigned, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, depth: 1)),
        Case(name: "client certificate as a server's", host: "localhost", chain: ["client", "intermediate-ca"],
             outcome: .fails(.invalidCertificate, X509_V_ERR_INVALID_PURPOSE, depth: 0)),
    ]

    @Test("default evaluation against the private root", arguments: cases)
    func defaultEvaluation(_ testCase: Case) throws {
        let trust = try TrustFixtures.trust(testCase.host, testCase.chain)
        testCase.outcome.check(trust.defaultEvaluationFailure)
        #expect(trust.isTrustedByDefault == (trust.defaultEvaluationFailure == nil))
        // Evaluating again with the host gives the same answer as the initializer did.
        #expect(trust.evaluate(validatingHost: true) == trust.defaultEvaluationFailure)
        #expect(trust.host == testCase.host)
        #expect(trust.certificates == (try TrustFixtures.chain(testCase.chain)))
    }

    /// Without the host (the basic X.509 check), a wrong name and the TLS purpose no longer
    /// matter; validity and the path still do.
    static let basicCases: [Case] = [
        Case(name: "leaf for another host", host: "localhost", chain: ["wrong-host", "intermediate-ca"], outcome: .trusted),
        Case(name: "wrong DNS name", host: "wrong.example", chain: full, outcome: .trusted),
        Case(name: "client certificate", host: "localhost", chain: ["client", "intermediate-ca"], outcome: .trusted),
        Case(name: "expired leaf", host: "localhost", chain: ["expired", "intermediate-ca"],
             outcome: .fails(.expired, X509_V_ERR_CERT_HAS_EXPIRED, depth: 0)),
        Case(name: "missing intermediate", host: "localhost", chain: ["leaf"],
             outcome: .fails(.unknownIssuer, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, depth: 0)),
        Case(name: "self-signed", host: "localhost", chain: ["self-signed-san"],
             outcome: .fails(.selfSigned, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, depth: 0)),
    ]

    @Test("evaluation without the host", arguments: basicCases)
    func basicEvaluation(_ testCase: Case) throws {
        let trust = try TrustFixtures.trust(testCase.host, testCase.chain)
        testCase.outcome.check(trust.evaluate(validatingHost: false))
    }

    /// The codes are OpenSSL's numbers, what curl prints as `%{ssl_verify_result}`.
    @Test("verify codes are OpenSSL's X509_V_ERR numbers")
    func verifyCodesAreOpenSSLNumbers() throws {
        #expect(try TrustFixtures.trust("localhost", ["expired", "intermediate-ca"]).defaultEvaluationFailure?.verifyCode == 10)
        #expect(try TrustFixtures.trust("localhost", ["leaf"]).defaultEvaluationFailure?.verifyCode == 20)
        #expect(try TrustFixtures.trust("localhost", ["self-signed-san"]).defaultEvaluationFailure?.verifyCode == 18)
        #expect(try TrustFixtures.trust("example.com", Self.full).defaultEvaluationFailure?.verifyCode == 62)
    }

    @Test("a failure names its certificate in OpenSSL's words")
    func failureDescription() throws {
        let expired = try #require(try TrustFixtures.trust("localhost", ["expired", "intermediate-ca"]).defaultEvaluationFailure)
        #expect(expired.subject == "CN=localhost,O=Ferry Test")
        #expect(expired.description == "certificate has expired (CN=localhost,O=Ferry Test, depth 0)")
        let error = ServerTrustError.untrusted(expired, host: "localhost")
        #expect(error.description == "Server certificate for localhost is not trusted: certificate has expired (CN=localhost,O=Ferry Test, depth 0)")
        let otherRoot = try #require(try TrustFixtures.trust("localhost", ["other-leaf", "other-ca"]).defaultEvaluationFailure)
        #expect(otherRoot.description == "self-signed certificate in certificate chain (CN=Ferry Other Root CA,O=Ferry Other, depth 1)")
    }

    /// RFC 6125 §6.4.4 allows the CN as a fallback; Ferry, like Apple and browsers, never uses it.
    @Test("a name only in the subject CN never matches")
    func noCommonNameFallback() throws {
        let cnOnly = try TestCertificates.certificate("self-signed-cn-only")
        let trust = ServerTrust(host: "localhost", certificates: [cnOnly], trustStore: try TrustStore(certificates: [cnOnly]))
        TrustOutcome.fails(.hostnameMismatch, X509_V_ERR_HOSTNAME_MISMATCH, depth: 0).check(trust.defaultEvaluationFailure)
        #expect(trust.evaluate(validatingHost: false) == nil)
        let san = try TestCertificates.certificate("self-signed-san")
        let sanTrust = ServerTrust(host: "localhost", certificates: [san], trustStore: try TrustStore(certificates: [san]))
        #expect(sanTrust.isTrustedByDefault)
    }

    /// Wildcards only as the whole left-most label, over exactly one label, with at least two
    /// labels after the star.
    @Test("wildcard names", arguments: [
        ("a.ferry.localhost", true),
        ("WWW.Ferry.LOCALHOST", true),
        ("a.b.ferry.localhost", false),
        ("ferry.localhost", false),
        (".ferry.localhost", false),
        ("b.partial.localhost", false),
        ("bar.partial.localhost", false),
        ("a.localhost", false),
    ])
    func wildcardNames(host: String, matches: Bool) throws {
        let wildcards = try TrustFixtures.wildcards()
        let trust = ServerTrust(host: host, certificates: [wildcards], trustStore: try TrustStore(certificates: [wildcards]))
        let expected: TrustOutcome = matches ? .trusted : .fails(.hostnameMismatch, X509_V_ERR_HOSTNAME_MISMATCH, depth: 0)
        expected.check(trust.defaultEvaluationFailure)
    }

    @Test("an empty chain is never trusted")
    func emptyChain() throws {
        let trust = ServerTrust(host: "localhost", certificates: [], trustStore: try TrustFixtures.privateRoot())
        #expect(trust.defaultEvaluationFailure?.reason == .invalidCertificate)
        #expect(trust.evaluate(anchoredOn: [try TestCertificates.certificate("leaf")], validatingHost: false)?.reason == .invalidCertificate)
    }

    @Test("a trust is made from OpenSSL's peer chain")
    func fromPeerChain() throws {
        let certificates = try TrustFixtures.chain(Self.full)
        let stack = try #require(OPENSSL_sk_new_null())
        defer {
            while let x509 = OPENSSL_sk_pop(stack) { X509_free(OpaquePointer(x509)) }
            OPENSSL_sk_free(stack)
        }
        for certificate in certificates {
            let x509 = try #require(certificate.derRepresentation.withUnsafeBufferPointer { buffer in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_X509(nil, &cursor, buffer.count)
            })
            OPENSSL_sk_push(stack, UnsafeRawPointer(x509))
        }
        let trust = try ServerTrust(host: "localhost", peerChain: stack, trustStore: try TrustFixtures.privateRoot())
        #expect(trust.certificates == certificates)
        #expect(trust.isTrustedByDefault)

        let empty = try #require(OPENSSL_sk_new_null())
        defer { OPENSSL_sk_free(empty) }
        #expect(throws: CertificateError.self) {
            try ServerTrust(host: "localhost", peerChain: empty, trustStore: try TrustFixtures.privateRoot())
        }
    }
}
