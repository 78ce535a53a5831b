import Foundation
import Testing
import TestSupport

/// `ferry`'s pinning flags against the NIOSSL test server: curl's `--pinnedpubkey` (the leaf's
/// key only) and Ferry's `--pin-cert`/`--pin-pubkey` (AFSecurityPolicy). A mismatch is exit
/// 90 and the server receives no application byte.
@Suite struct EndToEndPinningTests {
    private func fetch(_ server: TLSTestServer, _ arguments: [String]) async throws -> FerryProcess.Result {
        try await FerryProcess.run(["-sS", "-o", "/dev/null"] + arguments + [server.url("/get").absoluteString])
    }

    @Test func rightPinnedPubkeyPassesAndBackupPinsCount() async throws {
        let leafPin = try TLSFerry.pin(of: "leaf.pem")
        let otherPin = try TLSFerry.pin(of: "other-leaf.pem")
        try await TLSTestServer.withServer { server in
            let single = try await fetch(server, ["--cacert", TLSFerry.root, "--pinnedpubkey", leafPin])
            #expect(single.status == 0, "\(single)")
            let backup = try await fetch(server, ["--cacert", TLSFerry.root, "--pinnedpubkey", "\(otherPin);\(leafPin)"])
            #expect(backup.status == 0, "\(backup)")
        }
    }

    @Test func wrongPinnedPubkeyIsNinetyAndSendsNothing() async throws {
        let otherPin = try TLSFerry.pin(of: "other-leaf.pem")
        try await TLSTestServer.withServer { server in
            let result = try await fetch(server, ["--cacert", TLSFerry.root, "--pinnedpubkey", otherPin])
            #expect(result.status == 90, "\(result)")
            #expect(result.stderrLines.count == 1)
            #expect(result.stderr.hasPrefix("ferry: (90) ") && result.stderr.contains("127.0.0.1"), "\(result)")
            await TLSFerry.expectNothingReceived(server)
        }
    }

    @Test func pinnedPubkeyChecksTheLeafOnlyAsCurl() async throws {
        // The intermediate's key is in the chain, but curl pins the leaf's.
        let intermediatePin = try TLSFerry.pin(of: "intermediate-ca.pem")
        try await TLSTestServer.withServer { server in
            let result = try await fetch(server, ["--cacert", TLSFerry.root, "--pinnedpubkey", intermediatePin])
            #expect(result.status == 90, "\(result)")
            // Ferry's --pin-pubkey (AFSecurityPolicy) accepts a pinned key anywhere in the chain.
            let policy = try await fetch(server, ["--cacert", TLSFerry.root, "--pin-pubkey", TLSFerry.path("intermediate-ca.pem")])
            #expect(policy.status == 0, "\(policy)")
        }
    }

    @Test func pinnedPubkeyNeedsAValidChainUnlessInsecure() async throws {
        let pin = try TLSFerry.pin(of: "self-signed-san.pem")
        try await TLSTestServer.withServer(TLSServerConfiguration(serving: .selfSignedSAN)) { server in
            let strict = try await fetch(server, ["--pinnedpubkey", pin])
            #expect(strict.status == 60, "\(strict)")
            let insecure = try await fetch(server, ["-k", "--pinnedpubkey", pin])
            #expect(insecure.status == 0, "\(insecure)")
            let wrong = try await fetch(server, ["-k", "--pinnedpubkey", try TLSFerry.pin(of: "leaf.pem")])
            #expect(wrong.status == 90, "\(wrong)")
        }
    }

    @Test func pinnedPubkeyTakesAPublicKeyFileAndRefusesOthersWithNinety() async throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }  // deleted on deinit: keep it to the end
        let keyFile = try TLSFerry.publicKeyFile(of: "leaf.pem", in: directory.url)
        try await TLSTestServer.withServer { server in
            let result = try await fetch(server, ["--cacert", TLSFerry.root, "--pinnedpubkey", keyFile])
            #expect(result.status == 0, "\(result)")
            // curl 7.88: a missing file, a certificate instead of a key, a malformed pin: all 90.
            for bad in ["/nonexistent/key.pem", TLSFerry.path("leaf.pem"), "sha256//not-base64"] {
                let refused = try await fetch(server, ["--cacert", TLSFerry.root, "--pinnedpubkey", bad])
                #expect(refused.status == 90, "\(bad): \(refused)")
                #expect(refused.stderrLines.count == 1)
            }
        }
    }

    @Test func pinCertOnTheRootPassesAndAnotherCAIsNinety() async throws {
        try await TLSTestServer.withServer { server in
            let root = try await fetch(server, ["--cacert", TLSFerry.root, "--pin-cert", TLSFerry.root])
            #expect(root.status == 0, "\(root)")
            let intermediate = try await fetch(server, ["--cacert", TLSFerry.root, "--pin-cert", TLSFerry.path("intermediate-ca.pem")])
            #expect(intermediate.status == 0, "\(intermediate)")
            server.resetCounters()
            let other = try await fetch(server, ["--cacert", TLSFerry.root, "--pin-cert", TLSFerry.path("other-ca.pem")])
            #expect(other.status == 90, "\(other)")
            #expect(other.stderr.hasPrefix("ferry: (90) "), "\(other)")
            await TLSFerry.expectNothingReceived(server)
        }
    }

    @Test func pinCertWithoutTheRootNeedsAllowInvalidCerts() async throws {
        try await TLSTestServer.withServer { server in
            // AFSecurityPolicy: the chain must first be valid against the trust store (here the
            // system's, which does not know the private root).
            let strict = try await fetch(server, ["--pin-cert", TLSFerry.root])
            #expect(strict.status == 60, "\(strict)")
            let allowed = try await fetch(server, ["--pin-cert", TLSFerry.root, "--allow-invalid-certs"])
            #expect(allowed.status == 0, "\(allowed)")
        }
    }

    @Test func pinPubkeyOfAnotherKeyIsNinety() async throws {
        try await TLSTestServer.withServer { server in
            let result = try await fetch(server, ["--cacert", TLSFerry.root, "--pin-pubkey", TLSFerry.path("other-leaf.pem")])
            #expect(result.status == 90, "\(result)")
            await TLSFerry.expectNothingReceived(server)
        }
    }

    @Test func badPinCertFileIsSeventySeven() async throws {
        try await TLSTestServer.withServer { server in
            let result = try await fetch(server, ["--pin-cert", "/nonexistent/pin.pem"])
            #expect(result.status == 77, "\(result)")
            #expect(result.stderr.contains("/nonexistent/pin.pem"))
            #expect(server.connectionCount == 0)
        }
    }
}
