// Mutual TLS end to end against TLSTestServer requiring a client certificate: without an
// identity the request fails with the client-certificate code, and the server decrypts
// nothing; with a PEM or a PKCS#12 identity it succeeds and the server saw the certificate.
import Foundation
import FerryTLS
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session client certificates (end to end)")
struct SessionClientCertificateTests {
    /// `client.pem` as the server records it (RFC 2253).
    static let clientSubject = "CN=Ferry Test Client,O=Ferry Test"

    /// The identities of `Tests/TestSupport/Certificates`, by how they are stored.
    enum IdentityFile: String, Sendable, CaseIterable {
        case pem = "PEM certificate and key"
        case pkcs12 = "PKCS#12 with password"

        func load() throws -> ClientIdentity {
            switch self {
            case .pem:
                try ClientIdentity(certificateFile: TestCertificateFiles.url("client.pem"), keyFile: TestCertificateFiles.url("client.key"))
            case .pkcs12:
                try ClientIdentity(pkcs12File: TestCertificateFiles.url("client.p12"), password: "ferry")
            }
        }
    }

    @Test("with a client identity the server gets its certificate and answers 200",
          arguments: IdentityFile.allCases, [TLSServerConfiguration.Version.tls13, .tls12])
    func identityAccepted(file: IdentityFile, version: TLSServerConfiguration.Version) async throws {
        let server = TLSServerConfiguration(versions: version ... version, clientAuthentication: .required)
        try await TLSTestServer.withServer(server) { server in
            let identity = try file.load()
            let session = Session(configuration: try TLSSessionTest.configuration { $0.tlsConfiguration.clientIdentity = identity })
            defer { session.invalidateAndCancel() }
            let fetched = try await session.fetch(try TLSSessionTest.url(server))
            #expect(fetched.response.statusCode == 200)
            #expect(fetched.metrics.negotiatedTLSProtocolVersion == version.description)
            let connection = try #require(server.connections.first)
            #expect(connection.presentedClientCertificate)
            #expect(connection.clientCertificateSubject == Self.clientSubject)
            #expect(connection.clientCertificateDER == identity.certificate.derRepresentation)
            #expect(server.requestCount == 1)
        }
    }

    @Test("a server whose chain is refused never receives the client certificate",
          arguments: [TLSServerConfiguration.Version.tls13, .tls12])
    func identityWithheldFromARefusedServer(version: TLSServerConfiguration.Version) async throws {
        // other-leaf.pem chains to a root the session does not trust.
        let server = TLSServerConfiguration(serving: .otherLeaf, versions: version ... version, clientAuthentication: .optional)
        try await TLSTestServer.withServer(server) { server in
            let identity = try IdentityFile.pem.load()
            let session = Session(configuration: try TLSSessionTest.configuration { $0.tlsConfiguration.clientIdentity = identity })
            defer { session.invalidateAndCancel() }
            let error = await networkError { try await session.data(for: NetworkRequest(url: try TLSSessionTest.url(server))) }
            #expect(error?.code == .serverCertificateHasUnknownRoot)
            #expect(await TLSSessionTest.allConnectionsClosed(server))
            // The chain was judged as soon as it arrived, before the client's Certificate message.
            #expect(server.connections.allSatisfy { !$0.presentedClientCertificate })
            #expect(server.applicationBytesReceived == 0)
        }
    }

    /// Without an identity. In TLS 1.3 the client's handshake is complete once it has sent its
    /// (empty) Certificate and Finished: the server judges them only then, and its
    /// `certificate_required` alert (RFC 8446 §4.4.2.4, §6.2) may arrive after Ferry has written
    /// the request. The server, whose handshake failed, never decrypts those records: its
    /// application byte count stays 0 either way. In TLS 1.2 the server refuses before its
    /// Finished, so the client's handshake fails and nothing is written at all.
    struct MissingIdentity: Sendable, CustomTestStringConvertible {
        var version: TLSServerConfiguration.Version
        var code: NetworkError.Code
        var kind: TLSError.Kind
        var causes: [String]
        var testDescription: String { "\(version)" }
    }

    @Test("without a client identity the request fails naming the client certificate, and the server decrypts nothing",
          arguments: [
              MissingIdentity(version: .tls13, code: .clientCertificateRequired, kind: .clientCertificateRequired,
                              causes: ["requires a client certificate"]),
              MissingIdentity(version: .tls12, code: .clientCertificateRequired, kind: .clientCertificateRequired,
                              causes: ["requires a client certificate"]),
          ])
    func identityMissing(missing: MissingIdentity) async throws {
        let server = TLSServerConfiguration(versions: missing.version ... missing.version, clientAuthentication: .required)
        try await TLSTestServer.withServer(server) { server in
            let session = Session(configuration: try TLSSessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = try TLSSessionTest.url(server)
            let error = try await TLSSessionTest.expectRefusal(session, url, by: server, code: missing.code, naming: missing.causes)
            let tls = try #require(error.underlyingError as? TLSError, "\(error)")
            #expect(tls.kind == missing.kind, "\(tls)")
            #expect(server.handshakeCount == 0)
            #expect(server.handshakeFailureCount >= 1)
            #expect(server.connections.allSatisfy { !$0.handshakeCompleted && !$0.presentedClientCertificate })
        }
    }
}
