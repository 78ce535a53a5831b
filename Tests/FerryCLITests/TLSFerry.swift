import Ferry
import Foundation
import Testing
import TestSupport

/// Shared pieces of the end-to-end TLS tests: certificate paths, pins, and the check that a
/// refused server received nothing.
enum TLSFerry {
    /// `Tests/TestSupport/Certificates/<name>`.
    static func path(_ name: String) -> String { TestCertificateFiles.path(name) }

    /// The private root every good test leaf chains to.
    static var root: String { path("root-ca.pem") }

    /// The curl-style pin of the first certificate's key in `file`.
    static func pin(of file: String) throws -> String {
        let certificate = try #require(try Certificate.certificates(inFile: URL(fileURLWithPath: path(file))).first)
        return certificate.publicKey.pin
    }

    /// A PEM `PUBLIC KEY` file of the first certificate's key in `file`, written to `directory`
    /// (what curl's `--pinnedpubkey FILE` takes).
    static func publicKeyFile(of file: String, in directory: URL) throws -> String {
        let certificate = try #require(try Certificate.certificates(inFile: URL(fileURLWithPath: path(file))).first)
        let base64 = Data(certificate.publicKey.subjectPublicKeyInfoDER).base64EncodedString(options: .lineLength64Characters)
        let destination = directory.appendingPathComponent("\(file).pub.pem")
        try Data("-----BEGIN PUBLIC KEY-----\n\(base64)\n-----END PUBLIC KEY-----\n".utf8).write(to: destination)
        return destination.path
    }

    /// Expects that every connection to `server` closed and that none of them delivered one
    /// byte of application data (no request left ferry).
    static func expectNothingReceived(_ server: TLSTestServer, sourceLocation: SourceLocation = #_sourceLocation) async {
        let closed = await waitUntil { !server.connections.isEmpty && server.connections.allSatisfy(\.isClosed) }
        #expect(closed, "\(server.connections)", sourceLocation: sourceLocation)
        #expect(server.applicationBytesReceived == 0, sourceLocation: sourceLocation)
        #expect(server.requestCount == 0, sourceLocation: sourceLocation)
    }

    /// The `-w` fields ferry printed on its last standard-output line, split at spaces.
    static func writeOutFields(_ result: CommandResult) -> [String] {
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: true)
        return lines.last.map { $0.split(separator: " ").map(String.init) } ?? []
    }
}
