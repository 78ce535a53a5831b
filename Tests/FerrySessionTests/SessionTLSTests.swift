// Session over TLS, end to end against TLSTestServer (NIOSSL, not our code): a valid chain by
// name and by IP address, each way a chain is refused (with not one request byte delivered),
// protocol versions, session resumption on a new connection, and keep-alive reuse.
import FerryBase
import Foundation
import FerryTLS
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session over TLS (end to end)")
struct SessionTLSTests {
    // MARK: - Valid chains

    /// The host the URL names and the address the server listens on: the leaf carries
    /// `DNS:localhost`, `IP:127.0.0.1` and `IP:::1`.
    struct Address: Sendable, CustomTestStringConvertible {
        var urlHost: String
        var listenHost: String
        var testDescription: String { "\(urlHost) → \(listenHost)" }
    }

    @Test("a valid chain to a custom root: GET /get succeeds with TLS 1.3 metrics", arguments: [
        Address(urlHost: "localhost", listenHost: "127.0.0.1"),
        Address(urlHost: "127.0.0.1", listenHost: "127.0.0.1"),
        Address(urlHost: "[::1]", listenHost: "::1"),
    ])
    func validChainWithCustomRoot(address: Address) async throws {
        // A machine without IPv6 loopback cannot run the ::1 case (the server cannot bind).
        if address.listenHost == "::1" {
            guard let probe = try? TLSTestServer(TLSServerConfiguration(host: "::1")) else { return }
            await probe.shutdownGracefully()
        }
        try await TLSTestServer.withServer(TLSServerConfiguration(host: address.listenHost)) { server in
            let session = Session(configuration: try TLSSessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let fetched = try await session.fetch(try TLSSessionTest.url(server, host: address.urlHost, "/get?tls=1"))
            try Self.expectValidTLS13(fetched, from: server, address: address)
        }
    }

    private static func expectValidTLS13(_ fetched: TLSFetch, from server: TLSTestServer, address: Address) throws {
        #expect(fetched.response.statusCode == 200)
        let json = try SessionTest.json(fetched.data)
        #expect(json["url"] as? String == "https://\(address.urlHost):\(server.port)/get?tls=1")
        #expect((json["args"] as? [String: String])?["tls"] == "1")
        #expect(try SessionTest.headers(json)["Host"] == "\(address.urlHost):\(server.port)")
        let metrics = fetched.metrics
        #expect(metrics.negotiatedTLSProtocolVersion == "TLSv1.3")
        #expect(metrics.negotiatedTLSCipherSuite?.hasPrefix("TLS_") == true)
        #expect(metrics.serverCertificateVerifyResult == 0)
        #expect(!metrics.isTLSSessionResumed)
        let connectEnd = try #require(metrics.connectEnd)
        let secureEnd = try #require(metrics.secureConnectionEnd)
        #expect(secureEnd >= connectEnd, "the handshake ends after the TCP connect")
        #expect(metrics.remoteAddress == address.listenHost)
        #expect(fetched.connection?.tlsApplicationProtocol == "http/1.1")
        #expect(server.connections.first?.negotiatedProtocol == "http/1.1")
        #expect(server.handshakeCount == 1)
    }

    @Test(
        "the system store does not know the private root: -1203, nothing sent",
        .disabled(if: TLSSessionTest.systemStoreHoldsPrivateRoot, "SSL_CERT_FILE or SSL_CERT_DIR leads to a store holding root-ca.pem")
    )
    func systemTrustRefusesThePrivateRoot() async throws {
        try await TLSTestServer.withServer { server in
            let session = Session(configuration: try TLSSessionTest.configuration(trustingRoot: false))
            defer { session.invalidateAndCancel() }
            let error = try await TLSSessionTest.expectRefusal(
                session, try TLSSessionTest.url(server), by: server,
                code: .serverCertificateHasUnknownRoot, naming: ["not trusted", "unable to get local issuer certificate"])
            let trust = try #require(error.underlyingError as? ServerTrustError)
            #expect(trust.kind == .untrusted)
            #expect(trust.trustFailure?.reason == .unknownIssuer)
        }
    }

    // MARK: - Refused chains

    /// A server certificate the default rules refuse, and how.
    struct RefusedChain: Sendable, CustomTestStringConvertible {
        var name: String
        var server: TLSServerConfiguration
        var code: NetworkError.Code
        var reason: TrustFailure.Reason
        /// OpenSSL's `X509_V_ERR_…` (curl's `ssl_verify_result`).
        var verifyCodes: Set<Int32>
        /// OpenSSL's words for it, which the public reason must contain.
        var cause: String
        var testDescription: String { name }
    }

    static let refusedChains: [RefusedChain] = [
        RefusedChain(name: "expired", server: TLSServerConfiguration(serving: .expired),
                     code: .serverCertificateHasBadDate, reason: .expired, verifyCodes: [10], cause: "certificate has expired"),
        RefusedChain(name: "not yet valid", server: TLSServerConfiguration(serving: .notYetValid),
                     code: .serverCertificateNotYetValid, reason: .notYetValid, verifyCodes: [9], cause: "certificate is not yet valid"),
        RefusedChain(name: "wrong host", server: TLSServerConfiguration(serving: .wrongHost),
                     code: .serverCertificateUntrusted, reason: .hostnameMismatch, verifyCodes: [62], cause: "hostname mismatch"),
        RefusedChain(name: "self-signed (name in SAN)", server: TLSServerConfiguration(serving: .selfSignedSAN),
                     code: .serverCertificateHasUnknownRoot, reason: .selfSigned, verifyCodes: [18], cause: "self-signed certificate"),
        // Without the intermediate the leaf's issuer is nowhere: OpenSSL says 20 (issuer not
        // found locally) or 21 (cannot verify the first certificate) depending on the chain.
        RefusedChain(name: "missing intermediate", server: TLSServerConfiguration(serving: .leaf, includingIntermediate: false),
                     code: .serverCertificateHasUnknownRoot, reason: .unknownIssuer, verifyCodes: [20, 21], cause: "unable to"),
    ]

    @Test("a chain the default rules refuse fails with its own code and reason, before any request byte",
          arguments: refusedChains)
    func refusedChain(chain: RefusedChain) async throws {
        try await TLSTestServer.withServer(chain.server) { server in
            let session = Session(configuration: try TLSSessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let error = try await TLSSessionTest.expectRefusal(
                session, try TLSSessionTest.url(server), by: server, code: chain.code, naming: ["not trusted", chain.cause])
            let trust = try #require(error.underlyingError as? ServerTrustError, "\(error)")
            #expect(trust.kind == .untrusted)
            #expect(trust.host == "localhost")
            let failure = try #require(trust.trustFailure)
            #expect(failure.reason == chain.reason, "\(failure)")
            #expect(chain.verifyCodes.contains(failure.verifyCode), "\(failure.verifyCode): \(failure)")
            // The client judged the chain as soon as it arrived and stopped there: the server's
            // handshake never completed (it never got the client's Finished, nor a certificate).
            #expect(server.handshakeCount == 0)
        }
    }

    // MARK: - Versions

    /// A client version bound the server cannot meet.
    struct VersionMismatch: Sendable, CustomTestStringConvertible {
        var name: String
        var serverVersions: ClosedRange<TLSServerConfiguration.Version>
        var minimum: TLSVersion
        var maximum: TLSVersion?
        var testDescription: String { name }
    }

    @Test("no version in common fails the handshake: -1200 naming the version", arguments: [
        VersionMismatch(name: "minimum 1.3 against a TLS 1.2-only server", serverVersions: .tls12 ... .tls12, minimum: .v1_3),
        VersionMismatch(name: "maximum 1.2 against a TLS 1.3-only server", serverVersions: .tls13 ... .tls13, minimum: .v1_2, maximum: .v1_2),
    ])
    func noCommonVersion(mismatch: VersionMismatch) async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(versions: mismatch.serverVersions)) { server in
            let session = Session(configuration: try TLSSessionTest.configuration {
                $0.tlsConfiguration.minimumVersion = mismatch.minimum
                $0.tlsConfiguration.maximumVersion = mismatch.maximum
            })
            defer { session.invalidateAndCancel() }
            let error = try await TLSSessionTest.expectRefusal(
                session, try TLSSessionTest.url(server), by: server, code: .secureConnectionFailed, naming: ["version"])
            let tls = try #require(error.underlyingError as? TLSError, "\(error)")
            #expect(tls.kind == .unsupportedVersion, "\(tls)")
            #expect(server.handshakeCount == 0)
        }
    }

    // MARK: - Resumption

    /// A server version range and whether the client offers its cached session.
    struct Resumption: Sendable, CustomTestStringConvertible {
        var serverVersions: ClosedRange<TLSServerConfiguration.Version>
        var resumesSessions: Bool
        var testDescription: String {
            "\(serverVersions.upperBound), resumesSessions \(resumesSessions)"
        }
    }

    @Test("a second connection of the same session resumes the TLS session, unless turned off",
          arguments: [TLSServerConfiguration.Version.tls13, .tls12].flatMap { version in
              [true, false].map { Resumption(serverVersions: version ... version, resumesSessions: $0) }
          })
    func resumption(resumption: Resumption) async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(versions: resumption.serverVersions)) { server in
            let session = Session(configuration: try TLSSessionTest.configuration {
                $0.tlsConfiguration.resumesSessions = resumption.resumesSessions
            })
            defer { session.invalidateAndCancel() }
            let url = try TLSSessionTest.url(server)
            // Connection: close makes the server close after each response, so the second
            // request needs a new connection (and a new handshake).
            let first = try await session.fetch(url, headers: ["Connection": "close"])
            let second = try await session.fetch(url, headers: ["Connection": "close"])
            let version = resumption.serverVersions.upperBound.description
            for fetched in [first, second] {
                #expect(fetched.response.statusCode == 200)
                #expect(fetched.metrics.connectionsOpened == 1)
                #expect(!fetched.metrics.isReusedConnection)
                #expect(fetched.metrics.negotiatedTLSProtocolVersion == version)
                #expect(fetched.metrics.secureConnectionEnd != nil)
                // A resumed session keeps its first chain; the verdict on it stands.
                #expect(fetched.metrics.serverCertificateVerifyResult == 0)
            }
            #expect(!first.metrics.isTLSSessionResumed)
            #expect(second.metrics.isTLSSessionResumed == resumption.resumesSessions)
            #expect(second.connection?.isTLSSessionResumed == resumption.resumesSessions)
            #expect(server.connectionCount == 2)
            #expect(server.handshakeCount == 2)
        }
    }

    /// Fetches `url` `count` times in a row, each on a new connection (the server closes after
    /// each response), checking every status is 200.
    static func fetchOnNewConnections(_ session: Session, _ url: URL, count: Int) async throws -> [TLSFetch] {
        var results: [TLSFetch] = []
        for _ in 0..<count {
            let fetched = try await session.fetch(url, headers: ["Connection": "close"])
            #expect(fetched.response.statusCode == 200)
            results.append(fetched)
        }
        return results
    }

    @Test("resumed sessions chain on: a session issued on a resumed connection resumes too",
          arguments: [TLSServerConfiguration.Version.tls13, .tls12])
    func resumptionCarriesOn(version: TLSServerConfiguration.Version) async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(versions: version ... version)) { server in
            let session = Session(configuration: try TLSSessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = try TLSSessionTest.url(server)
            let fetched = try await Self.fetchOnNewConnections(session, url, count: 3)
            #expect(fetched.map(\.metrics.isTLSSessionResumed) == [false, true, true])
            // The default rules' verdict on the first chain stands for the resumed ones.
            #expect(fetched.allSatisfy { $0.metrics.serverCertificateVerifyResult == 0 })
            #expect(server.handshakeCount == 3)
        }
    }

    @Test("a session's evaluator is asked again on every resumed connection")
    func evaluatorIsAskedOnEveryResumedConnection() async throws {
        try await TLSTestServer.withServer { server in
            let evaluator = CountingEvaluator()
            let session = Session(configuration: try TLSSessionTest.configuration {
                $0.serverTrustEvaluator = evaluator
            })
            defer { session.invalidateAndCancel() }
            let url = try TLSSessionTest.url(server)
            let fetched = try await Self.fetchOnNewConnections(session, url, count: 3)
            #expect(fetched.map(\.metrics.isTLSSessionResumed) == [false, true, true])
            #expect(evaluator.count == 3)
        }
    }

    // MARK: - Connections

    @Test("within a session a kept-alive TLS connection serves the next request without a handshake")
    func keepAliveReuse() async throws {
        try await TLSTestServer.withServer { server in
            let session = Session(configuration: try TLSSessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = try TLSSessionTest.url(server)
            let first = try await session.fetch(url)
            let second = try await session.fetch(url)
            #expect(first.metrics.connectionsOpened == 1 && !first.metrics.isReusedConnection)
            #expect(second.metrics.connectionsOpened == 0 && second.metrics.isReusedConnection)
            #expect(second.metrics.secureConnectionEnd == nil, "no handshake on a reused connection")
            #expect(second.metrics.negotiatedTLSProtocolVersion == "TLSv1.3")
            #expect(server.connectionCount == 1)
            #expect(server.handshakeCount == 1)
            #expect(server.requestCount == 2)
        }
    }

    @Test("two sessions with different trust never share a connection: a refusing one opens its own")
    func sessionsDoNotShareConnections() async throws {
        try await TLSTestServer.withServer { server in
            let trusting = Session(configuration: try TLSSessionTest.configuration())
            defer { trusting.invalidateAndCancel() }
            let url = try TLSSessionTest.url(server)
            let first = try await trusting.fetch(url)
            #expect(first.metrics.connectionsOpened == 1)
            #expect(server.connectionCount == 1)

            // The same server, the same host and port, but a session that trusts only the
            // system store: it must not borrow the trusting session's idle connection.
            let distrusting = Session(configuration: try TLSSessionTest.configuration(trustingRoot: false))
            defer { distrusting.invalidateAndCancel() }
            let error = await networkError { try await distrusting.data(for: NetworkRequest(url: url)) }
            #expect(error?.code == .serverCertificateHasUnknownRoot, "\(String(describing: error))")
            #expect(server.connectionCount == 2)
            #expect(await waitUntil { server.connections.count == 2 && server.connections[1].isClosed })
            #expect(server.connections[1].applicationBytesReceived == 0)

            // The trusting session's connection is still there and still its own.
            let again = try await trusting.fetch(url)
            #expect(again.metrics.isReusedConnection && again.metrics.connectionsOpened == 0)
            #expect(server.connectionCount == 2)
            #expect(server.requestCount == 2)
        }
    }
}

/// Accepts what the default rules accept, counting the chains it was asked about.
private final class CountingEvaluator: ServerTrustEvaluating {
    private let calls = Locked(0)
    var count: Int { calls.withLock { $0 } }

    func evaluate(_ trust: ServerTrust, forDomain domain: String) throws(ServerTrustError) {
        calls.withLock { $0 += 1 }
        try DefaultTrustEvaluator().evaluate(trust, forDomain: domain)
    }
}
