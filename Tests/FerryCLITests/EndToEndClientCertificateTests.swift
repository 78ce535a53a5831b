import Foundation
import Testing
import TestSupport

/// `--cert`/`--key` against a server that requires a client certificate, with curl 7.88's exit
/// codes when none is sent: 56 over TLS 1.3 (the refusal is an alert after the client's
/// handshake), 35 over TLS 1.2 (it ends the handshake). A file that cannot be loaded is 58.
@Suite struct EndToEndClientCertificateTests {
    private static let identity = ["--cert", TLSFerry.path("client.pem"), "--key", TLSFerry.path("client.key")]

    private func fetch(_ server: TLSTestServer, _ arguments: [String]) async throws -> FerryProcess.Result {
        try await FerryProcess.run(["-sS", "-o", "/dev/null", "--cacert", TLSFerry.root] + arguments + [server.url("/get").absoluteString])
    }

    @Test func theClientCertificateIsPresented() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(clientAuthentication: .required)) { server in
            let result = try await fetch(server, Self.identity)
            #expect(result.status == 0, "\(result)")
            #expect(server.connections.first?.clientCertificateSubject == "CN=Ferry Test Client,O=Ferry Test")
            #expect(server.requestCount == 1)
        }
    }

    @Test func withoutOneTLSThirteenIsFiftySixAsCurl() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(clientAuthentication: .required)) { server in
            let result = try await fetch(server, [])
            #expect(result.status == 56, "\(result)")
            #expect(result.stderrLines.count == 1)
            #expect(result.stderr.contains("client certificate"), "\(result)")
            await TLSFerry.expectNothingReceived(server)
        }
    }

    @Test func withoutOneTLSTwelveIsThirtyFiveAsCurl() async throws {
        let configuration = TLSServerConfiguration(versions: .tls12 ... .tls12, clientAuthentication: .required)
        try await TLSTestServer.withServer(configuration) { server in
            let result = try await fetch(server, [])
            #expect(result.status == 35, "\(result)")
            #expect(result.stderrLines.count == 1)
            await TLSFerry.expectNothingReceived(server)
        }
    }

    @Test func unloadableClientCertificateIsFiftyEight() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(clientAuthentication: .required)) { server in
            let cases = [
                ["--cert", "/nonexistent/client.pem"],
                ["--cert", TLSFerry.path("client.pem"), "--key", TLSFerry.path("leaf.key")],  // not its key
                ["--cert", TLSFerry.path("client.pem")],  // no key in the file
            ]
            for arguments in cases {
                let result = try await fetch(server, arguments)
                #expect(result.status == 58, "\(arguments): \(result)")
                #expect(result.stderrLines.count == 1)
                #expect(result.stderr.hasPrefix("ferry: (58) ") && result.stderr.contains(arguments[1]), "\(result)")
            }
            #expect(server.connectionCount == 0)
        }
    }
}
