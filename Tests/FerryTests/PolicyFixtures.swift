import Ferry
import Foundation

/// The committed test certificates (`Tests/TestSupport/Certificates`), loaded by path, and
/// the trusts the policy tests evaluate.
enum PolicyFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("TestSupport/Certificates", isDirectory: true)

    /// The certificate in `name.pem`.
    static func certificate(_ name: String) throws -> Certificate {
        try Certificate(pemEncoded: String(contentsOf: directory.appendingPathComponent("\(name).pem"), encoding: .utf8))
    }

    /// The store of the policy tests: both private roots, so a chain from either CA is valid
    /// and only the pins tell the two "sites" apart.
    static let store: Result<TrustStore, any Error> = Result {
        try TrustStore(certificates: [certificate("root-ca"), certificate("other-ca")])
    }

    /// A trust for `host` over the named certificates (leaf first) against ``store``.
    static func trust(_ host: String, _ chain: [String]) throws -> ServerTrust {
        ServerTrust(host: host, certificates: try chain.map(certificate), trustStore: try store.get())
    }
}
