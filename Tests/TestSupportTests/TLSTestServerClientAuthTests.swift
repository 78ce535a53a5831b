import Foundation
import Testing
import TestSupport

/// TLSTestServer asking for client certificates (mTLS), against the system's curl.
@Suite struct TLSTestServerClientAuthTests {
    private static let clientCertificate = [
        "--cert", TestCertificateFiles.path("client.pem"), "--key", TestCertificateFiles.path("client.key"),
    ]

    @Test func requiredRefusesCurlWithoutACertificate() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(clientAuthentication: .required)) { server in
            let result = try await TLSClientTools.curlTrustingRoot(server.url("/get"))
            // TLS 1.3: the client's handshake ends before the server judges its (empty)
            // Certificate, so curl learns of the refusal from an alert while reading.
            #expect(result.status == 56, "\(result)")
            #expect(await waitUntil { server.handshakeFailureCount == 1 })
            #expect(await waitUntil { server.connections.first?.isClosed == true })
            let reason = server.connections.first?.handshakeError ?? ""
            #expect(reason.contains("PEER_DID_NOT_RETURN_A_CERTIFICATE"), "\(reason)")
            #expect(server.applicationBytesReceived == 0)
            #expect(server.requestCount == 0)
            #expect(server.connections.first?.presentedClientCertificate == false)
        }
    }

    @Test func requiredAcceptsCurlWithTheClientCertificate() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(clientAuthentication: .required)) { server in
            let result = try await TLSClientTools.curlTrustingRoot(server.url("/get"), with: Self.clientCertificate)
            #expect(result.status == 0, "\(result)")
            let connection = try #require(server.connections.first)
            #expect(connection.presentedClientCertificate)
            #expect(connection.clientCertificateSubject == "CN=Ferry Test Client,O=Ferry Test")
            let expected = try TestCertificateFiles.text("client.pem")
            #expect(connection.clientCertificateDER.map { Data($0).base64EncodedString() }.map { expected.contains($0.prefix(60)) } == true)
            #expect(server.requestCount == 1)
        }
    }

    @Test func requiredRefusesACertificateFromAnotherCA() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(clientAuthentication: .required)) { server in
            let stranger = ["--cert", TestCertificateFiles.path("other-leaf.pem"), "--key", TestCertificateFiles.path("other-leaf.key")]
            let result = try await TLSClientTools.curlTrustingRoot(server.url("/get"), with: stranger)
            #expect(result.status != 0, "\(result)")
            #expect(await waitUntil { server.handshakeFailureCount == 1 })
            #expect(server.applicationBytesReceived == 0)
        }
    }

    @Test func optionalAcceptsBothAndTellsThemApart() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(clientAuthentication: .optional)) { server in
            let anonymous = try await TLSClientTools.curlTrustingRoot(server.url("/get"))
            #expect(anonymous.status == 0, "\(anonymous)")
            let identified = try await TLSClientTools.curlTrustingRoot(server.url("/get"), with: Self.clientCertificate)
            #expect(identified.status == 0, "\(identified)")
            #expect(server.connections.map(\.presentedClientCertificate) == [false, true])
            #expect(server.connections.last?.clientCertificateSubject == "CN=Ferry Test Client,O=Ferry Test")
        }
    }
}
