import Foundation
import Testing
import TestSupport

/// TLSTestServer against the system's curl: trust, versions, ALPN and what it counts.
@Suite struct TLSTestServerTests {
    @Test func curlTrustingTheRootGetsTheEchoOverTLS() async throws {
        try await TLSTestServer.withServer { server in
            #expect(server.baseURLString == "https://127.0.0.1:\(server.port)")
            let result = try await TLSClientTools.curlTrustingRoot(server.url("/get?a=1"))
            #expect(result.status == 0, "\(result)")
            let json = try HTTPBinTest.json(result.stdout)
            #expect(json["url"] as? String == "https://127.0.0.1:\(server.port)/get?a=1")
            #expect(server.lastRequest?.uri == "/get?a=1")
            #expect(await waitUntil { server.connections.first?.isClosed == true })
            let connection = try #require(server.connections.first)
            #expect(connection.handshakeCompleted)
            #expect(connection.version == .tls13)
            #expect(connection.negotiatedProtocol == "http/1.1")
            #expect(!connection.presentedClientCertificate)
            #expect(connection.handshakeError == nil)
            #expect(connection.applicationBytesReceived > 0)
            #expect(server.applicationBytesReceived == connection.applicationBytesReceived)
            #expect(server.handshakeCount == 1)
            #expect(server.connectionCount == 1)
            #expect(server.requestCount == 1)
        }
    }

    @Test func curlWithoutTheRootFailsWithSixtyAndSendsNothing() async throws {
        try await TLSTestServer.withServer { server in
            // The system store does not know the private root.
            let result = try await TLSClientTools.curl([], server.url("/get"))
            #expect(result.status == 60, "\(result)")
            #expect(await waitUntil { server.connections.first?.isClosed == true })
            #expect(server.applicationBytesReceived == 0)
            #expect(server.connections.first?.applicationBytesReceived == 0)
            #expect(server.requestCount == 0)
            #expect(server.handshakeCount == 0)
            #expect(server.handshakeFailureCount == 1)
            // curl (OpenSSL) refuses the chain inside the handshake, before any request byte.
            #expect(server.connections.first?.handshakeError != nil, "\(server.connections)")
        }
    }

    @Test func applicationBytesAreExactlyWhatTheClientSent() async throws {
        try await TLSTestServer.withServer { server in
            let result = try await TLSClientTools.sClient(server, ["-quiet"])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText.hasPrefix("HTTP/1.1 200 OK"))
            #expect(await waitUntil { server.connections.first?.isClosed == true })
            #expect(server.applicationBytesReceived == TLSClientTools.closingRequest.utf8.count)
        }
    }

    @Test func tlsThirteenOnlyRefusesACurlCappedAtTwelve() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(versions: .tls13 ... .tls13)) { server in
            let refused = try await TLSClientTools.curlTrustingRoot(server.url("/get"), with: ["--tls-max", "1.2"])
            #expect(refused.status == 35, "\(refused)")
            #expect(await waitUntil { server.handshakeFailureCount == 1 })
            #expect(server.applicationBytesReceived == 0)
            let accepted = try await TLSClientTools.curlTrustingRoot(server.url("/get"))
            #expect(accepted.status == 0, "\(accepted)")
            #expect(server.handshakeCount == 1)
        }
    }

    @Test func tlsTwelveOnlyNegotiatesTwelve() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(versions: .tls12 ... .tls12)) { server in
            let result = try await TLSClientTools.curlTrustingRoot(server.url("/get"))
            #expect(result.status == 0, "\(result)")
            #expect(await waitUntil { server.handshakeCount == 1 })
            #expect(server.connections.first?.version == .tls12)
            #expect(server.connections.first?.negotiatedProtocol == "http/1.1")
            let refused = try await TLSClientTools.curlTrustingRoot(server.url("/get"), with: ["--tlsv1.3"])
            #expect(refused.status == 35, "\(refused)")
        }
    }

    @Test func missingIntermediateFailsVerificationWithTheRootAlone() async throws {
        let configuration = TLSServerConfiguration(serving: .leaf, includingIntermediate: false)
        #expect(configuration.certificateChain == ["leaf.pem"])
        try await TLSTestServer.withServer(configuration) { server in
            let result = try await TLSClientTools.curlTrustingRoot(server.url("/get"))
            #expect(result.status == 60, "\(result)")
            #expect(await waitUntil { server.connections.first?.isClosed == true })
            #expect(server.applicationBytesReceived == 0)
        }
    }

    @Test func listensOnIPv6Loopback() async throws {
        guard let server = try? TLSTestServer(TLSServerConfiguration(host: "::1")) else { return }  // no IPv6 here
        #expect(server.baseURLString == "https://[::1]:\(server.port)")
        let outcome = try? await TLSClientTools.curlTrustingRoot(server.url("/get"))
        await server.shutdownGracefully()
        let result = try #require(outcome)
        #expect(result.status == 0, "\(result)")
        #expect(try HTTPBinTest.json(result.stdout)["origin"] as? String == "::1")
    }

    @Test func refusesANonLoopbackHostAndAMissingFile() {
        #expect(throws: TestServerError.self) { try TLSTestServer(TLSServerConfiguration(host: "0.0.0.0")) }
        #expect(throws: TestServerError.self) {
            try TLSTestServer(TLSServerConfiguration(certificateChain: ["no-such.pem"], privateKey: "leaf.key"))
        }
        #expect(throws: TestServerError.self) {
            try TLSTestServer(TLSServerConfiguration(certificateChain: ["leaf.pem"], privateKey: "no-such.key"))
        }
    }

    @Test func resetCountersStartsAfresh() async throws {
        try await TLSTestServer.withServer { server in
            let first = try await TLSClientTools.curlTrustingRoot(server.url("/get"))
            #expect(first.status == 0)
            #expect(await waitUntil { server.connections.first?.isClosed == true })
            server.resetCounters()
            #expect(server.handshakeCount == 0 && server.applicationBytesReceived == 0)
            #expect(server.connections.isEmpty && server.connectionCount == 0 && server.requestCount == 0)
            let second = try await TLSClientTools.curlTrustingRoot(server.url("/get"))
            #expect(second.status == 0)
            #expect(await waitUntil { server.connections.first?.isClosed == true })
            #expect(server.connections.map(\.index) == [1])
            #expect(server.handshakeCount == 1)
        }
    }
}
