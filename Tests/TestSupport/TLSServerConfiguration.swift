// What a TLSTestServer presents and accepts, and its translation to NIOSSL's TLSConfiguration.
import NIOCore
import NIOSSL

/// How a ``TLSTestServer`` speaks TLS: the chain it sends, its key, the versions it accepts,
/// client authentication, ALPN and session resumption.
///
/// File names are looked up in `Tests/TestSupport/Certificates` (``TestCertificateFiles``);
/// an absolute path is used as it is.
public struct TLSServerConfiguration: Sendable {
    /// A TLS protocol version.
    public enum Version: Int, Comparable, Sendable, CustomStringConvertible {
        /// TLS 1.2 (RFC 5246).
        case tls12 = 12
        /// TLS 1.3 (RFC 8446).
        case tls13 = 13

        /// Orders by protocol version.
        public static func < (lhs: Version, rhs: Version) -> Bool { lhs.rawValue < rhs.rawValue }

        /// `TLSv1.2` or `TLSv1.3`, as OpenSSL names them.
        public var description: String { self == .tls12 ? "TLSv1.2" : "TLSv1.3" }

        var nioVersion: TLSVersion { self == .tls12 ? .tlsv12 : .tlsv13 }

        init?(_ version: TLSVersion) {
            switch version {
            case .tlsv12: self = .tls12
            case .tlsv13: self = .tls13
            case .tlsv1, .tlsv11: return nil
            }
        }
    }

    /// Whether the server asks the client for a certificate (mTLS).
    public enum ClientAuthentication: Sendable, Equatable {
        /// No CertificateRequest is sent.
        case none
        /// A certificate is requested; a client without one is accepted, a client whose
        /// certificate does not verify against ``clientTrustRoots`` is refused.
        case optional
        /// A certificate that verifies against ``clientTrustRoots`` is required.
        case required
    }

    /// The certificate files sent as the chain, leaf first (a file may hold several).
    public var certificateChain: [String]
    /// The PEM private key file of the leaf.
    public var privateKey: String
    /// The versions accepted, e.g. `.tls13 ... .tls13` for TLS 1.3 only.
    public var versions: ClosedRange<Version>
    /// Client certificate authentication.
    public var clientAuthentication: ClientAuthentication
    /// The anchors client certificates are verified against. The default also lists the
    /// intermediate so that a client sending only `client.pem` verifies: BoringSSL's server has
    /// no other place for untrusted intermediates, and the chain must still reach the
    /// self-signed root (partial chains are not accepted).
    public var clientTrustRoots: [String]
    /// The ALPN protocols offered (RFC 7301); the default is `http/1.1` only.
    public var applicationProtocols: [String]
    /// Whether a client can resume a session on a new connection (TLS 1.3 tickets, TLS 1.2
    /// tickets and session IDs; BoringSSL's server defaults). When false, each connection gets
    /// its own NIOSSL context, whose fresh ticket key and session cache make every handshake full.
    public var sessionResumption: Bool
    /// `"127.0.0.1"` (default) or `"::1"`.
    public var host: String

    /// A configuration serving `certificate`.
    /// - Parameters:
    ///   - certificate: the server certificate; `.leaf` by default.
    ///   - includingIntermediate: false leaves the intermediate out of the chain.
    ///   - versions: the TLS versions accepted; 1.2 and 1.3 by default.
    ///   - clientAuthentication: `.none` by default.
    ///   - sessionResumption: true by default.
    ///   - host: `"127.0.0.1"` (default) or `"::1"`.
    public init(
        serving certificate: TestServerCertificate = .leaf, includingIntermediate: Bool = true,
        versions: ClosedRange<Version> = .tls12 ... .tls13, clientAuthentication: ClientAuthentication = .none,
        sessionResumption: Bool = true, host: String = "127.0.0.1"
    ) {
        self.init(
            certificateChain: certificate.chainFiles(includingIntermediate: includingIntermediate),
            privateKey: certificate.privateKeyFile, versions: versions,
            clientAuthentication: clientAuthentication, sessionResumption: sessionResumption, host: host)
    }

    /// A configuration with an explicit chain and key.
    /// - Parameters:
    ///   - certificateChain: certificate files, leaf first.
    ///   - privateKey: the leaf's PEM key file.
    ///   - versions: the TLS versions accepted.
    ///   - clientAuthentication: whether to ask for a client certificate.
    ///   - sessionResumption: whether sessions can be resumed.
    ///   - host: `"127.0.0.1"` or `"::1"`.
    public init(
        certificateChain: [String], privateKey: String, versions: ClosedRange<Version> = .tls12 ... .tls13,
        clientAuthentication: ClientAuthentication = .none, sessionResumption: Bool = true, host: String = "127.0.0.1"
    ) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.versions = versions
        self.clientAuthentication = clientAuthentication
        self.clientTrustRoots = ["root-ca.pem", "intermediate-ca.pem"]
        self.applicationProtocols = ["http/1.1"]
        self.sessionResumption = sessionResumption
        self.host = host
    }

    /// NIOSSL's server configuration for these settings.
    /// - Throws: ``TestServerError`` naming the file that could not be loaded.
    func makeNIOConfiguration() throws -> TLSConfiguration {
        let chain = try certificateChain.flatMap { try Self.certificates(in: $0) }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: TestCertificateFiles.path(privateKey), format: .pem)
        } catch {
            throw TestServerError("cannot load the private key \(privateKey): \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = versions.lowerBound.nioVersion
        configuration.maximumTLSVersion = versions.upperBound.nioVersion
        configuration.applicationProtocols = applicationProtocols
        // After its close_notify the server waits this long for the client's before it drops
        // the socket (NIOSSL's default is 5 s); clients such as s_client never answer.
        configuration.shutdownTimeout = .seconds(1)
        switch clientAuthentication {
        case .none:
            configuration.certificateVerification = .none
        case .optional, .required:
            // A server has no hostname to check: noHostnameVerification is "verify the chain,
            // and require a certificate"; optionalVerification verifies only one that is sent.
            configuration.certificateVerification =
                clientAuthentication == .required ? .noHostnameVerification : .optionalVerification
            configuration.trustRoots = .certificates(try clientTrustRoots.flatMap { try Self.certificates(in: $0) })
            configuration.sendCANameList = true
        }
        return configuration
    }

    private static func certificates(in file: String) throws -> [NIOSSLCertificate] {
        do {
            return try NIOSSLCertificate.fromPEMFile(TestCertificateFiles.path(file))
        } catch {
            throw TestServerError("cannot load the certificate file \(file): \(error)")
        }
    }
}
