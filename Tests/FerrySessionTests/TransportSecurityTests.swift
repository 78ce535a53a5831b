// The transport security policy (App Transport Security's role; curl's --proto and
// --proto-redir): plain http refused before any socket opens, per-host exceptions, redirects to
// http refused, and the TLS floor it raises (TLS 1.3 required; forward-secret TLS 1.2 suites).
import COpenSSL
import Foundation
import FerryTLS
import Testing
import TestSupport

@testable import FerrySession

@Suite("Transport security policy")
struct TransportSecurityTests {
    static func expectRefused(_ session: Session, _ url: URL, naming words: String,
                              sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await session.data(for: NetworkRequest(url: url))
            Issue.record("expected the policy to refuse \(url)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .appTransportSecurityRequiresSecureConnection, sourceLocation: sourceLocation)
            #expect(error.reason.contains(words), "\(error.reason)", sourceLocation: sourceLocation)
        }
    }

    @Test("strict refuses plain http before a socket opens; a listed host is an exception")
    func plainHTTPRefused() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .close]])
        defer { server.shutdown() }
        let strict = Session(configuration: SessionTest.configuration { $0.transportSecurity = .strict })
        defer { strict.invalidateAndCancel() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/"))
        await Self.expectRefused(strict, url, naming: "refuses plain http")
        #expect(server.acceptedConnections == 0)
        var policy = TransportSecurityPolicy.strict
        policy.plainHTTPExceptions = ["127.0.0.0/8"]
        let excepted = Session(configuration: SessionTest.configuration { $0.transportSecurity = policy })
        defer { excepted.invalidateAndCancel() }
        let (data, _) = try await excepted.data(for: NetworkRequest(url: url))
        #expect(data == Data("ok".utf8))
    }

    @Test("refusing redirects only: the caller's http request goes, a redirect to http does not")
    func redirectsRefused() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.transportSecurity = TransportSecurityPolicy(plainHTTP: .refusedForRedirects)
            })
            defer { session.invalidateAndCancel() }
            let (_, direct) = try await session.data(for: NetworkRequest(url: server.url("/get")))
            #expect(direct.statusCode == 200)
            await Self.expectRefused(session, server.url("/redirect/1"), naming: "a redirect to plain http")
            #expect(server.requestCount == 2, "the redirect's target was never asked")
        }
    }

    @Test("a TLS 1.3 floor refuses a server that speaks TLS 1.2 at most")
    func tls13Required() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(versions: .tls12 ... .tls12)) { server in
            let session = Session(configuration: try TLSSessionTest.configuration {
                $0.transportSecurity = TransportSecurityPolicy(minimumTLSVersion: .v1_3)
            })
            defer { session.invalidateAndCancel() }
            try await TLSSessionTest.expectRefusal(session, try TLSSessionTest.url(server), by: server,
                                                   code: .secureConnectionFailed, naming: ["TLS"])
        }
    }

    @Test("forward secrecy leaves TLS 1.2 only ECDHE suites with AEAD ciphers")
    func forwardSecretSuites() throws {
        var configuration = TransportSecurityPolicy.strict.applied(to: TLSConfiguration())
        configuration.maximumVersion = .v1_2
        let context = try TLSClientContext(configuration: configuration)
        // TLS 1.3's suites (TLS_AES_…) are listed too; they are forward-secret by design.
        let names = context.cipherSuiteNames.filter { !$0.hasPrefix("TLS_") }
        #expect(!names.isEmpty)
        #expect(names.allSatisfy { $0.hasPrefix("ECDHE-") && ($0.contains("GCM") || $0.contains("CHACHA20")) }, "\(names)")
        let plain = try TLSClientContext(configuration: { var c = TLSConfiguration(); c.maximumVersion = .v1_2; return c }())
        #expect(plain.cipherSuiteNames.contains { !$0.hasPrefix("ECDHE-") }, "the system's list has others: the policy changed it")
    }
}
