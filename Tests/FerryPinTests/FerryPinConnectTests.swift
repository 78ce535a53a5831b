import Foundation
import Testing
import TestSupport

/// `ferry-pin --connect`: a live server's chain through Ferry's own TLS, printed like a file's,
/// with the default evaluation's verdict, and not one byte of HTTP sent.
@Suite struct FerryPinConnectTests {
    private static func authority(_ server: TLSTestServer) -> String { "127.0.0.1:\(server.port)" }

    @Test func printsLeafAndIntermediateWithOpenSSLsFingerprintsAndSendsNothing() async throws {
        try await TLSTestServer.withServer { server in
            let result = try await PinTool.run(["--connect", Self.authority(server)])
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.isEmpty)
            let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == "\(Self.authority(server)) [1/2]")
            #expect(lines.contains("\(Self.authority(server)) [2/2]"))
            let fingerprints = lines.filter { $0.hasPrefix("  sha256:") }
            let pins = lines.filter { $0.hasPrefix("  pin:") }
            #expect(fingerprints == [
                "  sha256:      \(try await OpenSSLReference.fingerprint(PinTool.path("leaf.pem")))",
                "  sha256:      \(try await OpenSSLReference.fingerprint(PinTool.path("intermediate-ca.pem")))",
            ])
            #expect(pins == [
                "  pin:         \(try await OpenSSLReference.pin(PinTool.path("leaf.pem")))",
                "  pin:         \(try await OpenSSLReference.pin(PinTool.path("intermediate-ca.pem")))",
            ])
            // The system store does not know the private root.
            let verify = lines.last { !$0.isEmpty } ?? ""
            #expect(verify.hasPrefix("verify: unable to get local issuer certificate"), "\(verify)")
            #expect(await waitUntil { server.connections.first?.isClosed == true })
            // ferry-pin refuses as soon as the chain arrives: the server's handshake never ends.
            #expect(server.handshakeCount == 0)
            #expect(server.applicationBytesReceived == 0)
            #expect(server.requestCount == 0)
        }
    }

    @Test func verifyIsOkWithTheRootAndJSONCarriesIt() async throws {
        try await TLSTestServer.withServer { server in
            let text = try await PinTool.run(["--connect", Self.authority(server), "--cacert", PinTool.path("root-ca.pem")])
            #expect(text.status == 0, "\(text)")
            #expect(text.stdoutText.hasSuffix("\n\nverify: ok\n"), "\(text)")
            let json = try await PinTool.run(["--json", "--connect", Self.authority(server), "--cacert", PinTool.path("root-ca.pem")])
            #expect(json.status == 0, "\(json)")
            let objects = try PinTool.jsonArray(json)
            #expect(objects.count == 2)
            #expect(objects.map { $0["file"] as? String } == [Self.authority(server), Self.authority(server)])
            #expect(objects.map { $0["index"] as? Int } == [1, 2])
            #expect(objects.map { $0["verify"] as? String } == ["ok", "ok"])
            #expect(objects.map { $0["verifyResult"] as? Int } == [0, 0])
            #expect(objects.first?["sha256"] as? String == (try await OpenSSLReference.fingerprint(PinTool.path("leaf.pem"))))
            #expect(objects.last?["subject"] as? String == "CN=Ferry Test Intermediate CA,O=Ferry Test")
            #expect(server.applicationBytesReceived == 0)
        }
    }

    @Test func anyChainIsShownEvenSelfSigned() async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(serving: .selfSignedSAN)) { server in
            let result = try await PinTool.run(["--json", "--connect", Self.authority(server)])
            #expect(result.status == 0, "\(result)")
            let objects = try PinTool.jsonArray(result)
            #expect(objects.count == 1)
            #expect(objects.first?["selfSigned"] as? Bool == true)
            // X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT.
            #expect(objects.first?["verifyResult"] as? Int == 18)
            #expect((objects.first?["verify"] as? String)?.contains("self-signed") == true)
        }
    }

    @Test func serverNameAsksForAndVerifiesAnotherName() async throws {
        try await TLSTestServer.withServer { server in
            let root = PinTool.path("root-ca.pem")
            let named = try await PinTool.run(["--connect", Self.authority(server), "--servername", "localhost", "--cacert", root])
            #expect(named.status == 0, "\(named)")
            #expect(named.stdoutText.hasPrefix("localhost via \(Self.authority(server)) [1/2]\n"), "\(named)")
            #expect(named.stdoutText.hasSuffix("verify: ok\n"))
            let wrong = try await PinTool.run(["--connect", Self.authority(server), "--servername", "wrong.example", "--cacert", root])
            #expect(wrong.status == 0, "\(wrong)")
            #expect(wrong.stdoutText.contains("\nverify: hostname mismatch"), "\(wrong)")
            #expect(server.applicationBytesReceived == 0)
        }
    }

    @Test func refusedPortIsSevenNamingIt() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let result = try await PinTool.run(["--connect", "127.0.0.1:\(refusing.port)"])
        #expect(result.status == 7, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("ferry-pin: 127.0.0.1:\(refusing.port): "), "\(result)")
        #expect(result.stderr.contains("Connection refused"), "\(result)")
    }

    @Test func aPlainHTTPServerIsAHandshakeFailure() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await PinTool.run(["--connect", "127.0.0.1:\(server.port)"])
            #expect(result.status == 35, "\(result)")
            #expect(result.stderrLines.count == 1)
        }
    }
}
