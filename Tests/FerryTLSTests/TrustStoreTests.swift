import Foundation
import FerryTLS
import Testing
import TestSupport

@Suite("TrustStore")
struct TrustStoreTests {
    @Test("custom roots from certificates")
    func fromCertificates() throws {
        let root = try TestCertificates.certificate("root-ca")
        let store = try TrustStore(certificates: [root])
        #expect(store.customCertificates == [root])
        #expect(try TrustFixtures.trust("localhost", ["leaf", "intermediate-ca"], store: store).isTrustedByDefault)
        #expect(try TrustFixtures.trust("localhost", ["other-leaf"], store: store).defaultEvaluationFailure?.reason == .unknownIssuer)
        let empty = try TrustStore(certificates: [])
        #expect(try TrustFixtures.trust("localhost", ["leaf", "intermediate-ca"], store: empty).defaultEvaluationFailure?.reason == .unknownIssuer)
    }

    @Test("custom roots from a PEM bundle")
    func fromPEMBundle() throws {
        try withTemporaryDirectory { directory in
            let bundle = directory.appendingPathComponent("bundle.pem")
            try (TestCertificates.text("root-ca.pem") + TestCertificates.text("other-ca.pem")).write(to: bundle, atomically: true, encoding: .utf8)
            let store = try TrustStore(contentsOf: bundle)
            #expect(store.customCertificates == (try TrustFixtures.chain(["root-ca", "other-ca"])))
            #expect(try TrustFixtures.trust("localhost", ["leaf", "intermediate-ca"], store: store).isTrustedByDefault)
            #expect(try TrustFixtures.trust("localhost", ["other-leaf"], store: store).isTrustedByDefault)
        }
    }

    @Test("a custom root from a DER file")
    func fromDERFile() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("root.der")
            try Data(TestCertificates.certificate("root-ca").derRepresentation).write(to: file)
            let store = try TrustStore(contentsOf: file)
            #expect(store.customCertificates == [try TestCertificates.certificate("root-ca")])
            #expect(try TrustFixtures.trust("127.0.0.1", ["leaf", "intermediate-ca"], store: store).isTrustedByDefault)
        }
    }

    /// Every certificate in a store is an anchor, a root or not (`X509_V_FLAG_PARTIAL_CHAIN`):
    /// curl 7.88 trusts `--cacert leaf.pem` or `--cacert intermediate-ca.pem` so, as Apple's
    /// anchors. The host, the validity and the purpose are still checked below the anchor.
    @Test("any certificate in a store is an anchor")
    func everyStoredCertificateIsAnAnchor() throws {
        let leafStore = try TrustStore(contentsOf: TestCertificates.url("leaf.der"))
        #expect(try TrustFixtures.trust("localhost", ["leaf"], store: leafStore).isTrustedByDefault)
        #expect(try TrustFixtures.trust("localhost", ["leaf", "intermediate-ca"], store: leafStore).isTrustedByDefault)
        #expect(try TrustFixtures.trust("localhost", ["leaf-same-key", "intermediate-ca"], store: leafStore)
            .defaultEvaluationFailure?.reason == .unknownIssuer)

        let intermediateStore = try TrustStore(certificates: [TestCertificates.certificate("intermediate-ca")])
        #expect(try TrustFixtures.trust("localhost", ["leaf"], store: intermediateStore).isTrustedByDefault)
        #expect(try TrustFixtures.trust("localhost", ["leaf", "intermediate-ca"], store: intermediateStore).isTrustedByDefault)
        #expect(try TrustFixtures.trust("localhost", ["wrong-host", "intermediate-ca"], store: intermediateStore)
            .defaultEvaluationFailure?.reason == .hostnameMismatch)
        #expect(try TrustFixtures.trust("localhost", ["expired", "intermediate-ca"], store: intermediateStore)
            .defaultEvaluationFailure?.reason == .expired)
        #expect(try TrustFixtures.trust("localhost", ["client", "intermediate-ca"], store: intermediateStore)
            .defaultEvaluationFailure != nil)
        #expect(try TrustFixtures.trust("localhost", ["other-leaf"], store: intermediateStore)
            .defaultEvaluationFailure?.reason == .unknownIssuer)
    }

    @Test("an unreadable file is an error naming it")
    func unreadableFile() throws {
        let missing = TestCertificates.url("no-such-file.pem")
        let error = try #require(throws: CertificateError.self) { try TrustStore(contentsOf: missing) }
        #expect(error.kind == .unreadableFile)
        #expect(error.detail.contains(missing.path))
    }

    @Test("a malformed file is an error naming it", arguments: [
        ("garbage.der", Array("not a certificate".utf8), CertificateError.Kind.invalidDER),
        ("key-only.pem", Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8), .noCertificate),
        ("truncated.pem", Array("-----BEGIN CERTIFICATE-----\nMIIB\n".utf8), .invalidPEM),
    ])
    func malformedFile(name: String, bytes: [UInt8], kind: CertificateError.Kind) throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent(name)
            try Data(bytes).write(to: file)
            let error = try #require(throws: CertificateError.self) { try TrustStore(contentsOf: file) }
            #expect(error.kind == kind)
            #expect(error.detail.contains(file.path))
        }
    }

    @Test("the system store loads once and does not trust the private CA")
    func systemStore() throws {
        #expect(TrustStore.system === TrustStore.system)
        #expect(TrustStore.system.customCertificates == nil)
        let trust = try TrustFixtures.trust("localhost", ["leaf", "intermediate-ca"], store: .system)
        #expect(trust.defaultEvaluationFailure?.reason == .unknownIssuer)
        #expect(trust.evaluate(anchoredOn: [try TestCertificates.certificate("root-ca")], validatingHost: true) == nil)
    }

    /// OpenSSL reads SSL_CERT_FILE when the system store loads. Setting it in this process
    /// would race the other tests, so a child copy of this test binary runs
    /// ``systemStoreProbe()`` with the variable pointing at the private root.
    @Test("the system store honours SSL_CERT_FILE (in a child process)")
    func systemStoreHonoursSSLCertFile() async throws {
        try await withTemporaryDirectoryAsync { directory in
            let output = directory.appendingPathComponent("probe.txt")
            let testBinary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let result = try await CommandRunner.run(
                testBinary, ["--testing-library", "swift-testing", "--filter", "systemStoreProbe"],
                timeLimit: 120,
                environment: [
                    "SSL_CERT_FILE": TestCertificates.url("root-ca.pem").path,
                    "SSL_CERT_DIR": directory.appendingPathComponent("no-such-dir").path,
                    Self.probeVariable: output.path,
                ]
            )
            #expect(result.status == 0, "\(result)")
            #expect(try String(contentsOf: output, encoding: .utf8) == "trusted")
        }
    }

    static let probeVariable = "FERRY_TRUST_STORE_PROBE_OUTPUT"

    /// Runs only in the child started by ``systemStoreHonoursSSLCertFile()`` (skipped
    /// otherwise): expects the system store, loaded with SSL_CERT_FILE naming the private root,
    /// to trust the private chain (a failure makes the child exit non-zero), and writes the
    /// verdict for the parent to check as well.
    @Test("system store probe", .enabled(if: ProcessInfo.processInfo.environment[probeVariable] != nil,
                                         "does its work only in the child process systemStoreHonoursSSLCertFile starts"))
    func systemStoreProbe() throws {
        let path = try #require(ProcessInfo.processInfo.environment[Self.probeVariable])
        let trust = try TrustFixtures.trust("localhost", ["leaf", "intermediate-ca"], store: .system)
        let failure = trust.defaultEvaluationFailure
        try (trust.isTrustedByDefault ? "trusted" : "untrusted: \(failure?.description ?? "")")
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(trust.isTrustedByDefault, "the system store did not take SSL_CERT_FILE: \(String(describing: failure))")
    }
}

/// Runs `body` with a new empty directory, removed afterwards.
func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-trust-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// The async form of ``withTemporaryDirectory(_:)``.
func withTemporaryDirectoryAsync<R>(_ body: (URL) async throws -> R) async throws -> R {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-trust-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}
