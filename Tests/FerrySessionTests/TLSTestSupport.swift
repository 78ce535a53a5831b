// Helpers for the end-to-end TLS tests against TLSTestServer (NIOSSL): sessions that trust the
// private root, URLs by host name, a fetch that keeps the transaction metrics, and the check
// every refusal makes (code, reason, and not one application byte at the server).
import Foundation
import FerryTLS
import Testing
import TestSupport

@testable import FerrySession

enum TLSSessionTest {
    /// A test configuration whose trust store is `root-ca.pem` (curl's `--cacert`), or the
    /// system store when `trustingRoot` is false.
    static func configuration(
        trustingRoot: Bool = true, _ edit: (inout SessionConfiguration) throws -> Void = { _ in }
    ) throws -> SessionConfiguration {
        var configuration = SessionTest.configuration()
        if trustingRoot {
            configuration.tlsConfiguration.trustStore = try TrustStore(contentsOf: TestCertificateFiles.url("root-ca.pem"))
        }
        try edit(&configuration)
        return configuration
    }

    /// `https://HOST:PORT/PATH` on `server`, by a name of our choosing: `localhost` (DNS SAN),
    /// `127.0.0.1` or `[::1]` (IP SANs).
    static func url(_ server: TLSTestServer, host: String = "localhost", _ path: String = "/get") throws -> URL {
        try #require(URL(string: "https://\(host):\(server.port)\(path)"))
    }

    /// The certificates of a file in `Tests/TestSupport/Certificates`.
    static func certificates(_ file: String) throws -> Set<Certificate> {
        Set(try Certificate.certificates(inFile: TestCertificateFiles.url(file)))
    }

    /// The curl-style pin (`sha256//…`) of the first certificate's key in `file`.
    static func pin(of file: String) throws -> String {
        try #require(Certificate.certificates(inFile: TestCertificateFiles.url(file)).first).publicKey.pin
    }

    /// Whether the store OpenSSL's default paths lead to holds the private root: only when
    /// `SSL_CERT_FILE` or `SSL_CERT_DIR` redirect it to a place that has `root-ca.pem`. Tests
    /// that need the system store to refuse the private CA are skipped then. The environment
    /// is read, never changed; an unreadable file or folder counts as not holding it.
    static var systemStoreHoldsPrivateRoot: Bool {
        let environment = ProcessInfo.processInfo.environment
        guard let root = try? Certificate.certificates(inFile: TestCertificateFiles.url("root-ca.pem")).first else { return false }
        var files: [URL] = []
        if let file = environment["SSL_CERT_FILE"] { files.append(URL(fileURLWithPath: file)) }
        // OpenSSL's SSL_CERT_DIR is a colon-separated list of folders of hashed links.
        for directory in environment["SSL_CERT_DIR"]?.split(separator: ":") ?? [] {
            let folder = URL(fileURLWithPath: String(directory), isDirectory: true)
            files += (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        }
        return files.contains { file in (try? Certificate.certificates(inFile: file))?.contains(root) == true }
    }

    /// Whether every connection the server accepted (at least one) has been closed by the
    /// client, waiting at most 10 s: from then on its application byte count is final.
    static func allConnectionsClosed(_ server: TLSTestServer) async -> Bool {
        await waitUntil { !server.connections.isEmpty && server.connections.allSatisfy(\.isClosed) }
    }

    /// Expects the server to have received no application data at all, once every connection
    /// is closed: no request byte left the client.
    static func expectNothingReceived(_ server: TLSTestServer, sourceLocation: SourceLocation = #_sourceLocation) async {
        #expect(await allConnectionsClosed(server), "the client never closed: \(server.connections)", sourceLocation: sourceLocation)
        #expect(server.applicationBytesReceived == 0, "\(server.connections)", sourceLocation: sourceLocation)
        #expect(server.connections.allSatisfy { $0.applicationBytesReceived == 0 }, sourceLocation: sourceLocation)
        #expect(server.requestCount == 0, sourceLocation: sourceLocation)
    }

    /// Fetches `url` with `session`, expects it to fail with `code` and a reason naming the
    /// URL's host and each of `causes` (case-insensitive), and the server to have received
    /// nothing.
    /// - Returns: the error, for further checks of its underlying cause.
    @discardableResult
    static func expectRefusal(
        _ session: Session, _ url: URL, by server: TLSTestServer, code: NetworkError.Code, naming causes: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> NetworkError {
        let failure = await networkError(sourceLocation: sourceLocation) { try await session.data(for: NetworkRequest(url: url)) }
        let error = try #require(failure, "\(url) was fetched, expected \(code)", sourceLocation: sourceLocation)
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        let reason = error.reason.lowercased()
        let host = url.host(percentEncoded: false) ?? ""
        #expect(reason.contains(host.lowercased()), "the reason does not name \(host): \(error.reason)", sourceLocation: sourceLocation)
        for cause in causes {
            #expect(reason.contains(cause.lowercased()), "the reason does not say \"\(cause)\": \(error.reason)", sourceLocation: sourceLocation)
        }
        await expectNothingReceived(server, sourceLocation: sourceLocation)
        return error
    }
}

/// What one successful fetch returned, with its transaction's metrics.
struct TLSFetch {
    var data: Data
    var response: NetworkResponse
    var metrics: TransactionMetrics
    var connection: ConnectionInfo?
}

extension Session {
    /// GETs `url` with `headers`, recording the delegate calls to return the metrics and the
    /// connection the request head went out on.
    /// - Throws: ``NetworkError`` from the request; a test failure when no metrics arrived.
    func fetch(_ url: URL, headers: [String: String] = [:]) async throws -> TLSFetch {
        var request = NetworkRequest(url: url)
        for (name, value) in headers { try request.setValue(value, forHTTPHeaderField: name) }
        let delegate = RecordingDelegate(queue: delegateQueue)
        let (data, response) = try await data(for: request, delegate: delegate)
        let metrics = try #require(delegate.metrics?.transactionMetrics.last, "no metrics for \(url)")
        var connection: ConnectionInfo?
        for case .sentHead(_, let info) in delegate.events { connection = info }
        return TLSFetch(data: data, response: response, metrics: metrics, connection: connection)
    }
}
