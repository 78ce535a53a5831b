import Ferry
import Foundation
import Testing
import TestSupport
@testable import ferry

/// The TLS flags as parsed, and what ``TLSSetup`` makes of them, without a network.
struct TLSSetupTests {
    private func tls(_ arguments: String...) throws(UsageError) -> TLSOptions {
        try ArgumentParser().parse(arguments + ["https://a/"]).tls
    }

    @Test func flagsAreSpelledAsCurl() throws {
        let options = try tls("-k", "--cacert", "ca.pem", "-E", "c.pem", "--key", "c.key", "--pinnedpubkey", "sha256//x")
        #expect(options.insecure)
        #expect(options.caCertificateFile == "ca.pem")
        #expect(options.clientCertificateFile == "c.pem" && options.clientKeyFile == "c.key")
        #expect(options.pinnedPublicKey == "sha256//x")
        #expect(try tls("--insecure", "--no-insecure").insecure == false)
        #expect(try tls("-sk").insecure)
    }

    @Test func ferryOnlyFlagsRepeatAndNegate() throws {
        let options = try tls("--pin-cert", "a.pem", "--pin-cert", "b.pem", "--pin-pubkey", "c.pem", "--allow-invalid-certs", "--no-validate-domain")
        #expect(options.pinnedCertificateFiles == ["a.pem", "b.pem"])
        #expect(options.pinnedPublicKeyFiles == ["c.pem"])
        #expect(options.allowInvalidCertificates && !options.validatesDomainName)
        #expect(options.usesSecurityPolicy)
        #expect(try tls("--no-validate-domain", "--no-no-validate-domain").validatesDomainName)
        #expect(try tls().usesSecurityPolicy == false)
        // Three options start with "pin": a prefix must be unique.
        #expect(throws: UsageError("option --pin: is ambiguous")) { try tls("--pin", "x") }
    }

    @Test func noFlagsKeepTheSessionDefaults() {
        let setup = TLSSetup(TLSOptions())
        #expect(setup.failure == nil)
        #expect(setup.evaluator == nil)
        #expect(setup.configuration.clientIdentity == nil)
    }

    @Test func badFilesGiveCurlsExitCodesNamingThePath() {
        var options = TLSOptions()
        options.caCertificateFile = "/nonexistent/ca.pem"
        #expect(TLSSetup(options).failure?.exitCode == .badCAFile)
        #expect(TLSSetup(options).failure?.message.contains("/nonexistent/ca.pem") == true)
        options = TLSOptions()
        options.clientCertificateFile = TestCertificateFiles.path("client.pem")
        #expect(TLSSetup(options).failure?.exitCode == .badClientCertificate)  // no key in the file
        options.clientKeyFile = TestCertificateFiles.path("client.key")
        #expect(TLSSetup(options).failure == nil)
        #expect(TLSSetup(options).configuration.clientIdentity != nil)
        options = TLSOptions()
        options.pinnedCertificateFiles = ["/nonexistent/pin.pem"]
        #expect(TLSSetup(options).failure?.exitCode == .badCAFile)
        options = TLSOptions()
        options.pinnedPublicKey = "sha256//tooShort="
        #expect(TLSSetup(options).failure?.exitCode == .pinningMismatch)
    }

    @Test func insecureNeverReadsTheCAFile() {
        var options = TLSOptions()
        options.caCertificateFile = "/nonexistent/ca.pem"
        options.insecure = true
        // curl -k --cacert missing.pem fetches: nothing is checked against the roots.
        #expect(TLSSetup(options).failure == nil)
    }

    @Test func curlPinListsAndPublicKeyFiles() throws {
        let leaf = try #require(try Certificate.certificates(inFile: URL(fileURLWithPath: TestCertificateFiles.path("leaf.pem"))).first)
        let other = try #require(try Certificate.certificates(inFile: URL(fileURLWithPath: TestCertificateFiles.path("other-leaf.pem"))).first)
        let pins = try TLSSetup.curlPins("\(leaf.publicKey.pin);\(other.publicKey.pin)")
        #expect(pins == [PublicKeyPin(leaf.publicKey), PublicKeyPin(other.publicKey)])
        let directory = try TemporaryDirectory()
        let der = directory.path("leaf.spki.der")
        try Data(leaf.publicKey.subjectPublicKeyInfoDER).write(to: URL(fileURLWithPath: der))
        #expect(try TLSSetup.curlPins(der) == [PublicKeyPin(leaf.publicKey)])
        // A certificate is not a public key (curl refuses it too).
        #expect(throws: TLSSetup.Failure.self) { try TLSSetup.curlPins(TestCertificateFiles.path("leaf.der")) }
        withExtendedLifetime(directory) {}
    }

    @Test func leafKeyPinningLooksAtTheLeafOnly() throws {
        let chain = try Certificate.certificates(inFile: URL(fileURLWithPath: TestCertificateFiles.path("chain.pem")))
        let trust = ServerTrust(host: "localhost", certificates: chain, trustStore: try TrustStore(contentsOf: URL(fileURLWithPath: TestCertificateFiles.path("root-ca.pem"))))
        let leafPin = LeafKeyPinning(pins: [PublicKeyPin(chain[0].publicKey)], requiresTrustedChain: true)
        #expect(throws: Never.self) { try leafPin.evaluate(trust, forDomain: "localhost") }
        let intermediatePin = LeafKeyPinning(pins: [PublicKeyPin(chain[1].publicKey)], requiresTrustedChain: true)
        #expect(throws: ServerTrustError.self) { try intermediatePin.evaluate(trust, forDomain: "localhost") }
        // Without the root, a right pin still needs -k.
        let untrusted = ServerTrust(host: "localhost", certificates: chain, trustStore: try TrustStore(certificates: []))
        #expect(throws: ServerTrustError.self) { try leafPin.evaluate(untrusted, forDomain: "localhost") }
        let insecure = LeafKeyPinning(pins: leafPin.pins, requiresTrustedChain: false)
        #expect(throws: Never.self) { try insecure.evaluate(untrusted, forDomain: "localhost") }
    }
}
