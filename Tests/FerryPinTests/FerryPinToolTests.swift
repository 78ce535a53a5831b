import Foundation
import Testing
import TestSupport

/// The built `ferry-pin` binary on the committed certificates, checked against `openssl`.
@Suite struct FerryPinToolTests {
    /// Every single-certificate PEM file of the test set.
    static let singles = [
        "root-ca", "intermediate-ca", "leaf", "leaf-same-key", "expired", "not-yet-valid",
        "wrong-host", "wildcard", "client", "other-ca", "other-leaf",
        "self-signed-cn-only", "self-signed-san", "self-signed-no-names",
    ]

    @Test("fingerprint and pin equal what openssl computes", arguments: singles)
    func matchesOpenSSL(name: String) async throws {
        let file = PinTool.path("\(name).pem")
        let result = try await PinTool.run([file])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(file) [1/1]")
        #expect(lines.contains("  sha256:      \(try await OpenSSLReference.fingerprint(file))"))
        #expect(lines.contains("  pin:         \(try await OpenSSLReference.pin(file))"))
        #expect(result.stderr.isEmpty)
    }

    @Test func textBlockHasEveryField() async throws {
        let result = try await PinTool.run([PinTool.path("leaf.pem")])
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 7)
        #expect(lines.dropFirst().map { String($0.prefix(15)) } == [
            "  subject:     ", "  issuer:      ", "  names:       ", "  valid:       ", "  sha256:      ",
            "  pin:         ",
        ])
        #expect(lines[1] == "  subject:     CN=localhost,O=Ferry Test")
        #expect(lines[2] == "  issuer:      CN=Ferry Test Intermediate CA,O=Ferry Test")
        #expect(lines[3] == "  names:       DNS:localhost, IP:127.0.0.1, IP:::1")
        #expect(lines[4].hasSuffix(" to 2100-12-31T23:59:59Z"))
    }

    @Test func selfSignedIsMarkedAndNamelessHasNoNamesLine() async throws {
        let result = try await PinTool.run([PinTool.path("self-signed-no-names.pem")])
        #expect(result.stdoutText.contains("  self-signed: yes\n"))
        #expect(!result.stdoutText.contains("names:"))
        #expect(result.stdoutText.contains("  subject:     O=Ferry Test\n"))
    }

    @Test func chainGivesTwoBlocksInFileOrder() async throws {
        let file = PinTool.path("chain.pem")
        let result = try await PinTool.run([file])
        #expect(result.status == 0)
        let blocks = result.stdoutText.components(separatedBy: "\n\n")
        #expect(blocks.count == 2)
        #expect(blocks.first?.hasPrefix("\(file) [1/2]\n  subject:     CN=localhost,") == true)
        #expect(blocks.last?.hasPrefix("\(file) [2/2]\n  subject:     CN=Ferry Test Intermediate CA,") == true)
        let intermediatePin = try await OpenSSLReference.pin(PinTool.path("intermediate-ca.pem"))
        #expect(blocks.last?.contains("  pin:         \(intermediatePin)\n") == true)
    }

    @Test func derFileGivesTheSameBlockAsPEM() async throws {
        let der = try await PinTool.run([PinTool.path("leaf.der")])
        let pem = try await PinTool.run([PinTool.path("leaf.pem")])
        #expect(der.status == 0)
        #expect(der.stdoutText.split(separator: "\n").dropFirst() == pem.stdoutText.split(separator: "\n").dropFirst())
    }

    @Test func standardInputIsTheFileDash() async throws {
        let result = try await PinTool.run(["-"], input: try TestCertificateFiles.bytes("chain.pem"))
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutText.hasPrefix("- [1/2]\n"))
        #expect(result.stdoutText.contains("\n- [2/2]\n"))
    }

    @Test func jsonIsOneArrayOverAllFiles() async throws {
        let leaf = PinTool.path("leaf.pem")
        let chain = PinTool.path("chain.pem")
        let result = try await PinTool.run(["--json", leaf, chain])
        #expect(result.status == 0, "\(result)")
        let array = try PinTool.jsonArray(result)
        #expect(array.count == 3)
        #expect(array.map { $0["file"] as? String } == [leaf, chain, chain])
        #expect(array.map { $0["index"] as? Int } == [1, 1, 2])
        #expect(array.map { $0["count"] as? Int } == [1, 2, 2])
        let first = try #require(array.first)
        #expect(first["subject"] as? String == "CN=localhost,O=Ferry Test")
        #expect(first["issuer"] as? String == "CN=Ferry Test Intermediate CA,O=Ferry Test")
        #expect(first["subjectAlternativeNames"] as? [String] == ["DNS:localhost", "IP:127.0.0.1", "IP:::1"])
        #expect(first["selfSigned"] as? Bool == false)
        #expect(first["notAfter"] as? String == "2100-12-31T23:59:59Z")
        #expect((first["notBefore"] as? String)?.hasSuffix("Z") == true)
        #expect(first["sha256"] as? String == (try await OpenSSLReference.fingerprint(leaf)))
        #expect(first["pin"] as? String == (try await OpenSSLReference.pin(leaf)))
        // The pin is written as is, without JSON's optional "\/" escaping.
        #expect(result.stdoutText.contains("\"sha256//"))
    }

    @Test func jsonMarksSelfSigned() async throws {
        let result = try await PinTool.run(["--json", PinTool.path("root-ca.pem")])
        #expect(try PinTool.jsonArray(result).first?["selfSigned"] as? Bool == true)
    }
}
