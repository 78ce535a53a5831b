import Foundation
import Testing
import TestSupport

/// What TLSTestServer sends and resumes, seen by `openssl s_client`.
@Suite struct TLSTestServerChainTests {
    @Test("each server certificate is sent with its chain", arguments: TestServerCertificate.allCases)
    func sendsTheConfiguredChain(certificate: TestServerCertificate) async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(serving: certificate)) { server in
            let result = try await TLSClientTools.sClient(server, ["-showcerts"])
            let subjects = TLSClientTools.chainSubjects(result)
            #expect(subjects.count == (certificate.isIssuedByIntermediate ? 2 : 1), "\(result)")
            if certificate.isIssuedByIntermediate {
                #expect(subjects.last == "O = Ferry Test, CN = Ferry Test Intermediate CA")
            }
            #expect(server.handshakeCount == 1)
        }
    }

    @Test func offersHTTP11ByALPN() async throws {
        try await TLSTestServer.withServer { server in
            let result = try await TLSClientTools.sClient(server, ["-alpn", "h2,http/1.1"])
            #expect(result.stdoutText.contains("ALPN protocol: http/1.1"), "\(result)")
        }
    }

    @Test("a second connection resumes the session", arguments: [["-tls1_3"], ["-tls1_2"]])
    func resumesSessions(version: [String]) async throws {
        try await TLSTestServer.withServer { server in
            let scratch = try TemporaryDirectory()
            let session = scratch.path("session.pem")
            let first = try await TLSClientTools.sClient(server, version + ["-sess_out", session])
            #expect(first.stdoutText.contains("\nNew, TLSv1."), "\(first)")
            let second = try await TLSClientTools.sClient(server, version + ["-sess_in", session])
            #expect(second.stdoutText.contains("\nReused, TLSv1."), "\(second)")
            #expect(server.handshakeCount == 2)
        }
    }

    @Test func withoutResumptionEveryHandshakeIsFull() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(sessionResumption: false)) { server in
            let scratch = try TemporaryDirectory()
            let session = scratch.path("session.pem")
            _ = try await TLSClientTools.sClient(server, ["-sess_out", session])
            let second = try await TLSClientTools.sClient(server, ["-sess_in", session])
            #expect(second.stdoutText.contains("\nNew, TLSv1.3"), "\(second)")
        }
    }
}
