import Ferry
import Foundation

/// A TLS server named by `--connect HOST:PORT` (and `--servername NAME`), and the fetch of
/// the chain it presents through Ferry's own TLS.
struct LiveServer: Sendable, Equatable {
    /// Where to connect: a DNS name or an IP literal (without brackets).
    let host: String
    /// The TCP port.
    let port: Int
    /// The name asked for in SNI and verified in the chain; nil: ``host`` itself.
    let serverName: String?

    /// The longest the TCP connect plus TLS handshake may take.
    static let connectTimeout: Duration = .seconds(10)

    /// Reads `HOST:PORT` (`[v6]:PORT` for an IPv6 literal).
    /// - Throws: ``PinFailure/usage(_:)`` for a missing host or a port outside 1…65535.
    init(_ authority: String, serverName: String?) throws(PinFailure) {
        let host: Substring
        let portText: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .usage("--connect \(authority): missing ']'") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .usage("--connect \(authority): expected HOST:PORT") }
            portText = rest.dropFirst()
        } else {
            guard let colon = authority.lastIndex(of: ":"), authority.filter({ $0 == ":" }).count == 1 else {
                throw .usage("--connect \(authority): expected HOST:PORT ('[::1]:443' for IPv6)")
            }
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .usage("--connect \(authority): no host") }
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw .usage("--connect \(authority): the port must be a number from 1 to 65535")
        }
        if let serverName, serverName.isEmpty || serverName.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace }) {
            throw .usage("--servername \(serverName): not a host name")
        }
        self.host = String(host)
        self.port = port
        self.serverName = serverName
    }

    /// How the chain is labelled in the output: `HOST:PORT`, or `NAME via HOST:PORT`.
    var label: String {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return serverName.map { "\($0) via \(authority)" } ?? authority
    }

    /// Handshakes with the server, records its chain and closes without sending a request.
    /// - Parameter trustStore: the roots of the default evaluation the result reports.
    /// - Returns: the trust: the chain as sent and the default evaluation's verdict.
    /// - Throws: ``PinFailure`` naming the cause when no chain was received: DNS (6),
    ///   connection refused (7), timeout (28), TLS handshake (35).
    func fetchTrust(trustStore: TrustStore) async throws(PinFailure) -> ServerTrust {
        let name = serverName ?? host
        let recorder = ChainRecorder()
        var configuration = SessionConfiguration.default
        configuration.tlsConfiguration.trustStore = trustStore
        configuration.serverTrustEvaluator = recorder
        configuration.timeoutIntervalForConnect = Self.connectTimeout
        configuration.timeoutIntervalForResource = Self.connectTimeout * 2
        if serverName != nil {
            // curl's --resolve: connect to HOST, while the URL (SNI, verification) says NAME.
            configuration.resolvedAddresses = [name.lowercased(): host]
        }
        let urlHost = name.contains(":") ? "[\(name)]" : name
        guard let url = URL(string: "https://\(urlHost):\(port)/") else {
            throw .usage("--connect \(label): not a usable host")
        }
        let session = Session(configuration: configuration)
        defer { session.invalidateAndCancel() }
        do {
            _ = try await session.data(for: NetworkRequest(url: url))
        } catch {
            if let trust = recorder.trust { return trust }
            throw PinFailure(exitCode: Self.exitCode(error.code), message: "\(label): \(error.reason)")
        }
        // The recorder refuses every chain: a response means no TLS evaluation happened.
        throw PinFailure(exitCode: 35, message: "\(label): the server answered without presenting a certificate chain")
    }

    /// curl's numbers for the failures possible before a chain arrives.
    private static func exitCode(_ code: NetworkError.Code) -> Int32 {
        switch code {
        case .cannotFindHost, .dnsLookupFailed: 6
        case .cannotConnectToHost: 7
        case .timedOut: 28
        case .badURL, .unsupportedURL: 2
        case .secureConnectionFailed, .clientCertificateRequired, .clientCertificateRejected: 35
        default: 56
        }
    }
}
