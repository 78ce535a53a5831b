import COpenSSL
import Foundation
import Testing
@testable import FerryTLS

/// ``TLSConnection`` against an OpenSSL server in memory: no socket anywhere.
@Suite struct TLSConnectionTests {
    private func connect(
        _ configuration: TLSConfiguration = TLSConfiguration(), server options: MemoryTLSServer.Options = .init(),
        name: String = "localhost", context: TLSClientContext? = nil, on existing: MemoryTLSServer? = nil
    ) throws -> (client: TLSConnection, peer: MemoryTLSServer.Peer, server: MemoryTLSServer, context: TLSClientContext) {
        let server = try existing ?? MemoryTLSServer(options)
        let context = try context ?? TLSClientContext(configuration: configuration)
        let client = try context.makeConnection(serverName: name, port: 443)
        let peer = server.accept()
        #expect(client.handshake() == .needsInput)
        peer.pump(client)
        return (client, peer, server, context)
    }

    @Test func handshakeNegotiatesTLS13WithALPNAndSNI() throws {
        let pair = try connect()
        #expect(pair.client.handshake() == .complete)
        #expect(pair.client.protocolVersion == "TLSv1.3")
        #expect(pair.client.cipherSuite?.hasPrefix("TLS_") == true)
        #expect(pair.client.applicationProtocol == "http/1.1")
        #expect(pair.peer.serverName == "localhost")
        #expect(pair.client.isResumed == false)
        let chainLength = pair.client.withPeerChain { $0.map { Int(OPENSSL_sk_num($0)) } }
        #expect(chainLength == 2)
    }

    @Test func addressLiteralsAreNotSentAsSNI() throws {
        let pair = try connect(name: "127.0.0.1")
        #expect(pair.client.handshake() == .complete)
        #expect(pair.peer.serverName == nil)
    }

    @Test func applicationDataFlowsBothWays() throws {
        let pair = try connect()
        let request = Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        try request.withUnsafeBytes { try pair.client.write($0) }
        pair.peer.pump(pair.client)
        #expect(pair.peer.readAll() == request)

        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        pair.peer.send(body)
        pair.peer.pump(pair.client)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 70_000)
        while true {
            let result = buffer.withUnsafeMutableBytes { pair.client.read(into: $0) }
            guard case .bytes(let count) = result else {
                #expect(result == .needsInput)
                break
            }
            received += buffer[0..<count]
        }
        #expect(received == body)
    }

    @Test func closeNotifyEndsTheStreamCleanly() throws {
        let pair = try connect()
        _ = SSL_shutdown(pair.peer.ssl)
        pair.peer.pump(pair.client)
        var buffer = [UInt8](repeating: 0, count: 1024)
        #expect(buffer.withUnsafeMutableBytes { pair.client.read(into: $0) } == .closed)
        pair.client.close()
        #expect(pair.client.pendingOutput > 0, "close_notify is queued for the server")
    }

    @Test func minimumVersionRefusesAnOlderServer() throws {
        var configuration = TLSConfiguration()
        configuration.minimumVersion = .v1_3
        let pair = try connect(configuration, server: .init(maximumVersion: TLS1_2_VERSION))
        guard case .failed(let error) = pair.client.handshake() else {
            Issue.record("the handshake should fail")
            return
        }
        #expect(error.kind == .unsupportedVersion)
        #expect(error.description.contains("version"))
    }

    @Test func tls12IsNegotiatedWhenTheServerStopsThere() throws {
        let pair = try connect(server: .init(maximumVersion: TLS1_2_VERSION))
        #expect(pair.client.handshake() == .complete)
        #expect(pair.client.protocolVersion == "TLSv1.2")
    }

    @Test(arguments: [TLS1_2_VERSION, TLS1_3_VERSION])
    func aSecondConnectionResumesTheSession(version: Int32) throws {
        let first = try connect(server: .init(maximumVersion: version))
        #expect(first.client.handshake() == .complete)
        // TLS 1.3 tickets come after the handshake: let the client read them.
        var buffer = [UInt8](repeating: 0, count: 1024)
        _ = buffer.withUnsafeMutableBytes { first.client.read(into: $0) }
        #expect(first.context.sessions.count == 1)

        let second = try connect(context: first.context, on: first.server)
        #expect(second.client.handshake() == .complete)
        #expect(second.client.isResumed)
        // The chain of the first handshake stays available for trust evaluation.
        let chainLength = second.client.withPeerChain { $0.map { Int(OPENSSL_sk_num($0)) } }
        #expect(chainLength == 2)

        let other = try connect(name: "127.0.0.1", context: first.context, on: first.server)
        #expect(other.client.handshake() == .complete)
        #expect(!other.client.isResumed, "sessions are kept per host and port")
    }

    @Test func resumptionCanBeTurnedOff() throws {
        var configuration = TLSConfiguration()
        configuration.resumesSessions = false
        let first = try connect(configuration)
        var buffer = [UInt8](repeating: 0, count: 1024)
        _ = buffer.withUnsafeMutableBytes { first.client.read(into: $0) }
        let second = try connect(context: first.context, on: first.server)
        #expect(second.client.handshake() == .complete)
        #expect(!second.client.isResumed)
        #expect(first.context.sessions.count == 0)
    }

    @Test func aFullHandshakeBringingTheApprovedChainFindsItsApproval() throws {
        var configuration = TLSConfiguration()
        configuration.resumesSessions = false
        let first = try connect(configuration)
        #expect(first.client.handshake() == .complete)
        #expect(first.client.cachedApprovalOfPeerChain == nil, "nothing was approved yet")
        let approval = try #require(DefaultTrustApproval(try TrustFixtures.trust("localhost", ["leaf", "intermediate-ca"])))
        first.client.recordDefaultTrustApproval(approval)
        #expect(first.context.approvals.count == 1)

        // A new full handshake (no resumption) with the same host and port, the same chain.
        let second = try connect(context: first.context, on: first.server)
        #expect(second.client.handshake() == .complete)
        #expect(!second.client.isResumed)
        let found = try #require(second.client.cachedApprovalOfPeerChain)
        #expect(found.trust.certificates == approval.trust.certificates)
    }

    @Test func anotherChainOrAnotherHostFindsNoApproval() throws {
        var configuration = TLSConfiguration()
        configuration.resumesSessions = false
        let first = try connect(configuration)
        #expect(first.client.handshake() == .complete)
        first.client.recordDefaultTrustApproval(
            try #require(DefaultTrustApproval(try TrustFixtures.trust("localhost", ["leaf", "intermediate-ca"]))))

        // Another certificate for the same key, name and issuer: different bytes, no approval.
        let sameKey = MemoryTLSServer.Options(certificateFiles: ["leaf-same-key.pem", "intermediate-ca.pem"])
        let swapped = try connect(server: sameKey, context: first.context)
        #expect(swapped.client.handshake() == .complete)
        #expect(swapped.client.cachedApprovalOfPeerChain == nil)
        // The leaf alone is not the approved chain either.
        let shorter = try connect(server: .init(certificateFiles: ["leaf.pem"]), context: first.context)
        #expect(shorter.client.handshake() == .complete)
        #expect(shorter.client.cachedApprovalOfPeerChain == nil)
        // Approvals are kept per host and port.
        let other = try connect(name: "127.0.0.1", context: first.context, on: first.server)
        #expect(other.client.handshake() == .complete)
        #expect(other.client.cachedApprovalOfPeerChain == nil)
    }

    @Test func aMissingClientCertificateIsNamed() throws {
        let pair = try connect(server: .init(requiresClientCertificate: true))
        // TLS 1.3: the client finishes first; the server's alert arrives with the next read.
        var outcome = pair.client.handshake()
        if outcome == .complete {
            var buffer = [UInt8](repeating: 0, count: 1024)
            let read = buffer.withUnsafeMutableBytes { pair.client.read(into: $0) }
            guard case .failed(let error) = read else {
                Issue.record("expected a failure, got \(read)")
                return
            }
            outcome = .failed(error)
        }
        guard case .failed(let error) = outcome else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .clientCertificateRequired)
    }

    @Test(arguments: ["pem", "p12"])
    func aClientIdentityIsPresented(form: String) throws {
        var configuration = TLSConfiguration()
        configuration.clientIdentity = form == "pem"
            ? try ClientIdentity(certificateFile: TestCertificates.url("client.pem"), keyFile: TestCertificates.url("client.key"))
            : try ClientIdentity(pkcs12File: TestCertificates.url("client.p12"), password: "ferry")
        let pair = try connect(configuration, server: .init(requiresClientCertificate: true))
        #expect(pair.client.handshake() == .complete)
        let request = Array("ping".utf8)
        try request.withUnsafeBytes { try pair.client.write($0) }
        pair.peer.pump(pair.client)
        #expect(pair.peer.readAll() == request)
        #expect(pair.peer.clientCertificateSubject == "CN=Ferry Test Client,O=Ferry Test")
    }

    @Test func garbageFromTheServerFailsTheHandshake() throws {
        let context = try TLSClientContext(configuration: TLSConfiguration())
        let client = try context.makeConnection(serverName: "localhost", port: 443)
        #expect(client.handshake() == .needsInput)
        let reply = Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)
        reply.withUnsafeBytes { client.receive($0) }
        guard case .failed(let error) = client.handshake() else {
            Issue.record("garbage must fail the handshake")
            return
        }
        #expect(error.kind == .handshakeFailed)
        #expect(!error.detail.isEmpty)
    }

    @Test func badALPNNamesAndVersionRangesAreRefused() {
        var configuration = TLSConfiguration()
        configuration.applicationProtocols = [""]
        #expect(throws: TLSError.self) { try TLSClientContext(configuration: configuration) }
        configuration = TLSConfiguration()
        configuration.minimumVersion = .v1_3
        configuration.maximumVersion = .v1_2
        #expect(throws: TLSError.self) { try TLSClientContext(configuration: configuration) }
    }
}

/// Loading client identities.
@Suite struct ClientIdentityTests {
    @Test func aKeyThatDoesNotMatchIsRefused() {
        #expect {
            try ClientIdentity(certificateFile: TestCertificates.url("client.pem"), keyFile: TestCertificates.url("leaf.key"))
        } throws: { error in
            (error as? CertificateError)?.kind == .keyMismatch
        }
    }

    @Test func aWrongPKCS12PasswordIsNamed() {
        #expect {
            try ClientIdentity(pkcs12File: TestCertificates.url("client.p12"), password: "wrong")
        } throws: { error in
            guard let error = error as? CertificateError else { return false }
            return error.kind == .invalidKey && error.detail.contains("client.p12")
        }
    }

    @Test func aFileWithoutAKeyIsRefused() {
        #expect {
            try ClientIdentity(certificateFile: TestCertificates.url("client.pem"))
        } throws: { error in
            (error as? CertificateError)?.kind == .invalidKey
        }
    }

    @Test func anEncryptedKeyNeedsItsPasswordAndNeverPrompts() throws {
        let certificate = TestCertificates.url("client.pem")
        let key = TestCertificates.url("client-encrypted.key")
        #expect {
            try ClientIdentity(certificateFile: certificate, keyFile: key)
        } throws: { error in
            (error as? CertificateError)?.kind == .invalidKey
        }
        #expect(throws: CertificateError.self) { try ClientIdentity(certificateFile: certificate, keyFile: key, password: "wrong") }
        let identity = try ClientIdentity(certificateFile: certificate, keyFile: key, password: "ferry")
        #expect(identity.certificate.subject == "CN=Ferry Test Client,O=Ferry Test")
    }

    @Test func pkcs12CarriesTheIntermediate() throws {
        let identity = try ClientIdentity(pkcs12File: TestCertificates.url("client.p12"), password: "ferry")
        #expect(identity.certificate.subject == "CN=Ferry Test Client,O=Ferry Test")
        #expect(identity.intermediates.map(\.subject) == ["CN=Ferry Test Intermediate CA,O=Ferry Test"])
    }
}
