// SecurityPolicy as a session's server trust evaluator, end to end against TLSTestServer:
// each pinning mode passing and failing, curl-style pins with backups, AFNetworking's
// allowInvalidCertificates rules, and evaluators chosen per host. Every refusal leaves the
// server without one application byte.
import Ferry
import Foundation
import FerryTLS
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session pinning (end to end)")
struct SessionPinningTests {
    /// A policy against the good leaf (sent with its intermediate, trusted through
    /// `root-ca.pem`), and the code it fails with, or nil when it passes.
    struct PinningCase: Sendable, CustomTestStringConvertible {
        var name: String
        var policy: @Sendable () throws -> SecurityPolicy
        var failure: NetworkError.Code?
        var testDescription: String { name }

        static func certificate(_ name: String, pinning file: String, failure: NetworkError.Code? = nil) -> PinningCase {
            PinningCase(name: name, policy: {
                SecurityPolicy(pinningMode: .certificate, pinnedCertificates: try TLSSessionTest.certificates(file))
            }, failure: failure)
        }

        static func publicKey(_ name: String, pinning file: String, failure: NetworkError.Code? = nil) -> PinningCase {
            PinningCase(name: name, policy: {
                SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: try TLSSessionTest.certificates(file))
            }, failure: failure)
        }

        /// curl's `--pinnedpubkey` list, built from the keys of `files` and parsed back.
        static func curlPins(_ name: String, keysOf files: [String], failure: NetworkError.Code? = nil) -> PinningCase {
            PinningCase(name: name, policy: {
                let list = try files.map(TLSSessionTest.pin(of:)).joined(separator: ";")
                return SecurityPolicy(pinningMode: .publicKey, pinnedPublicKeyHashes: Set(try PublicKeyPin.pins(fromCurlList: list)))
            }, failure: failure)
        }
    }

    static let leafCases: [PinningCase] = [
        .certificate("certificate mode, leaf pinned", pinning: "leaf.pem"),
        .certificate("certificate mode, intermediate pinned", pinning: "intermediate-ca.pem"),
        .certificate("certificate mode, root pinned", pinning: "root-ca.pem"),
        .certificate("certificate mode, unrelated CA pinned", pinning: "other-ca.pem", failure: .pinningMismatch),
        .certificate("certificate mode, same-key re-issued leaf pinned", pinning: "leaf-same-key.pem", failure: .pinningMismatch),
        .publicKey("public-key mode, same-key re-issued leaf pinned", pinning: "leaf-same-key.pem"),
        .publicKey("public-key mode, intermediate pinned", pinning: "intermediate-ca.pem"),
        .publicKey("public-key mode, other leaf pinned", pinning: "other-leaf.pem", failure: .pinningMismatch),
        .curlPins("curl pin of the leaf key", keysOf: ["leaf.pem"]),
        .curlPins("curl pin of another key", keysOf: ["other-leaf.pem"], failure: .pinningMismatch),
        .curlPins("curl pins: a wrong one, then the right one as backup", keysOf: ["other-leaf.pem", "leaf.pem"]),
        .curlPins("curl pins: two wrong ones", keysOf: ["other-leaf.pem", "other-ca.pem"], failure: .pinningMismatch),
    ]

    @Test("a pinning policy against the good leaf passes or fails with -4002", arguments: leafCases)
    func pinningAgainstTheLeaf(pinning: PinningCase) async throws {
        try await TLSTestServer.withServer { server in
            let policy = try pinning.policy()
            let session = Session(configuration: try TLSSessionTest.configuration { $0.serverTrustEvaluator = policy })
            defer { session.invalidateAndCancel() }
            let url = try TLSSessionTest.url(server)
            guard let code = pinning.failure else {
                let fetched = try await session.fetch(url)
                #expect(fetched.response.statusCode == 200)
                #expect(try SessionTest.json(fetched.data)["url"] as? String == url.absoluteString)
                #expect(fetched.metrics.serverCertificateVerifyResult == 0)
                return
            }
            let error = try await TLSSessionTest.expectRefusal(session, url, by: server, code: code, naming: ["pinning mismatch"])
            let trust = try #require(error.underlyingError as? ServerTrustError)
            #expect(trust.kind == .pinningMismatch)
        }
    }

    // MARK: - Invalid certificates allowed

    @Test("allowInvalidCertificates with the self-signed certificate's key pinned passes, without the system store knowing it")
    func allowInvalidWithPinnedKeyPasses() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(serving: .selfSignedSAN)) { server in
            var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: try TLSSessionTest.certificates("self-signed-san.pem"))
            policy.allowInvalidCertificates = true
            // validatesDomainName stays true: AFNetworking accepts it with pins present (rule 1).
            #expect(policy.validatesDomainName)
            let session = Session(configuration: try TLSSessionTest.configuration(trustingRoot: false) { $0.serverTrustEvaluator = policy })
            defer { session.invalidateAndCancel() }
            let fetched = try await session.fetch(try TLSSessionTest.url(server))
            #expect(fetched.response.statusCode == 200)
            // The chain is still invalid by the default rules, and the metrics say so (curl's
            // ssl_verify_result with -k): 18, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT.
            #expect(fetched.metrics.serverCertificateVerifyResult == 18)
        }
    }

    @Test("allowInvalidCertificates with another key pinned fails with -4002")
    func allowInvalidWithWrongKeyFails() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(serving: .selfSignedSAN)) { server in
            var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: try TLSSessionTest.certificates("leaf.pem"))
            policy.allowInvalidCertificates = true
            let session = Session(configuration: try TLSSessionTest.configuration(trustingRoot: false) { $0.serverTrustEvaluator = policy })
            defer { session.invalidateAndCancel() }
            try await TLSSessionTest.expectRefusal(
                session, try TLSSessionTest.url(server), by: server, code: .pinningMismatch, naming: ["pinning mismatch", "pinned public key"])
        }
    }

    @Test("allowInvalidCertificates and validatesDomainName without pinning is refused outright: -1202")
    func allowInvalidWithDomainButNoPinsIsRefused() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(serving: .selfSignedSAN)) { server in
            var policy = SecurityPolicy(pinningMode: .none)
            policy.allowInvalidCertificates = true
            policy.validatesDomainName = true
            let session = Session(configuration: try TLSSessionTest.configuration(trustingRoot: false) { $0.serverTrustEvaluator = policy })
            defer { session.invalidateAndCancel() }
            let error = try await TLSSessionTest.expectRefusal(
                session, try TLSSessionTest.url(server), by: server, code: .serverCertificateUntrusted, naming: ["refused", "needs pinning"])
            #expect((error.underlyingError as? ServerTrustError)?.kind == .refused)
        }
    }

    // MARK: - Evaluators per host

    @Test("a per-host policy applies to its host only: localhost is pinned (and fails), 127.0.0.1 keeps the default")
    func perHostEvaluator() async throws {
        try await TLSTestServer.withServer { server in
            let pinnedElsewhere = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: try TLSSessionTest.certificates("other-ca.pem"))
            let session = Session(configuration: try TLSSessionTest.configuration {
                // Host keys are matched case-insensitively, as host names are.
                $0.serverTrustEvaluatorsByHost = ["LocalHost": pinnedElsewhere]
            })
            defer { session.invalidateAndCancel() }
            try await TLSSessionTest.expectRefusal(
                session, try TLSSessionTest.url(server, host: "localhost"), by: server,
                code: .pinningMismatch, naming: ["pinning mismatch", "pinned certificate"])
            let byAddress = try await session.fetch(try TLSSessionTest.url(server, host: "127.0.0.1"))
            #expect(byAddress.response.statusCode == 200)
            #expect(server.connectionCount == 2)
            #expect(server.requestCount == 1)
        }
    }

    @Test("failing closed: a host without an evaluator is refused (-1202), a listed one passes")
    func requiresEvaluatorForEveryHost() async throws {
        try await TLSTestServer.withServer { server in
            let session = Session(configuration: try TLSSessionTest.configuration {
                $0.serverTrustEvaluatorsByHost = ["localhost": SecurityPolicy.default]
                $0.requiresServerTrustEvaluatorForEveryHost = true
            })
            defer { session.invalidateAndCancel() }
            let error = try await TLSSessionTest.expectRefusal(
                session, try TLSSessionTest.url(server, host: "127.0.0.1"), by: server,
                code: .serverCertificateUntrusted, naming: ["refused", "no server trust evaluator"])
            #expect((error.underlyingError as? ServerTrustError)?.kind == .refused)
            let listed = try await session.fetch(try TLSSessionTest.url(server, host: "localhost"))
            #expect(listed.response.statusCode == 200)
        }
    }

    @Test("the session-wide evaluator applies to every host without its own")
    func sessionEvaluatorAppliesToUnlistedHosts() async throws {
        try await TLSTestServer.withServer { server in
            let pinnedElsewhere = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: try TLSSessionTest.certificates("other-leaf.pem"))
            let pinnedRight = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: try TLSSessionTest.certificates("leaf.pem"))
            let session = Session(configuration: try TLSSessionTest.configuration {
                $0.serverTrustEvaluator = pinnedElsewhere
                $0.serverTrustEvaluatorsByHost = ["localhost": pinnedRight]
            })
            defer { session.invalidateAndCancel() }
            try await TLSSessionTest.expectRefusal(
                session, try TLSSessionTest.url(server, host: "127.0.0.1"), by: server,
                code: .pinningMismatch, naming: ["pinning mismatch"])
            let listed = try await session.fetch(try TLSSessionTest.url(server, host: "localhost"))
            #expect(listed.response.statusCode == 200)
        }
    }
}
