import FerryTLS
import FoundationEssentials

/// What a session refuses so that no byte goes out in clear text or over weak TLS: the role
/// App Transport Security plays for URLSession on Apple platforms, and curl's `--proto` and
/// `--proto-redir`. Off by default (a Linux back end talks to local plain-HTTP services).
///
/// Refusals happen before any socket is opened, with ``NetworkError/Code/appTransportSecurityRequiresSecureConnection``
/// and a reason that names the rule.
///
/// ```swift
/// var configuration = SessionConfiguration.default
/// configuration.transportSecurity = .strict                       // https only, TLS 1.2+ with forward secrecy
/// configuration.transportSecurity.plainHTTPExceptions = ["localhost", "10.0.0.0/8"]
/// configuration.transportSecurity.minimumTLSVersion = .v1_3      // or require TLS 1.3
/// ```
public struct TransportSecurityPolicy: Sendable, Equatable {
    /// Where plain `http` is allowed.
    public enum PlainHTTP: Sendable, Equatable {
        /// Everywhere (the default).
        case allowed
        /// For requests the caller makes, never for a redirect (curl's `--proto-redir =https`).
        case refusedForRedirects
        /// Nowhere: neither requests nor redirects (ATS's default, curl's `--proto =https`).
        case refused
    }

    /// Where plain `http` is allowed.
    public var plainHTTP: PlainHTTP
    /// Hosts that may still be reached over plain `http` when it is refused (ATS's exception
    /// domains): a name (matching itself and its subdomains), an IP address or a CIDR range.
    public var plainHTTPExceptions: [String] {
        didSet { exceptions = NoProxyList(plainHTTPExceptions.joined(separator: ",")) }
    }
    /// ``plainHTTPExceptions`` read once, not on every plain-http request.
    private var exceptions: NoProxyList
    /// The oldest TLS version accepted (never below 1.2); raises the TLS configuration's
    /// minimum when it is lower.
    public var minimumTLSVersion: TLSVersion
    /// TLS 1.2 only with ECDHE key exchange and AEAD ciphers (TLS 1.3's suites all are), so a
    /// recorded session cannot be decrypted with the server's key later.
    public var requiresForwardSecrecy: Bool

    /// Creates a policy; the defaults refuse nothing.
    public init(plainHTTP: PlainHTTP = .allowed, plainHTTPExceptions: [String] = [], minimumTLSVersion: TLSVersion = .v1_2,
                requiresForwardSecrecy: Bool = false) {
        self.plainHTTP = plainHTTP
        self.plainHTTPExceptions = plainHTTPExceptions
        exceptions = NoProxyList(plainHTTPExceptions.joined(separator: ","))
        self.minimumTLSVersion = minimumTLSVersion
        self.requiresForwardSecrecy = requiresForwardSecrecy
    }

    /// Refuses nothing (the default).
    public static let off = TransportSecurityPolicy()

    /// ATS's defaults: https only (requests and redirects), TLS 1.2 or newer with forward
    /// secrecy.
    public static let strict = TransportSecurityPolicy(plainHTTP: .refused, requiresForwardSecrecy: true)

    /// Why a request for `url` (reached by a redirect when `isRedirect`) must not be sent, or
    /// nil when it may.
    func refusal(of url: URL, isRedirect: Bool) -> String? {
        // Asked on every request: the common answer first, without looking at the URL.
        switch plainHTTP {
        case .allowed: return nil
        case .refusedForRedirects where !isRedirect: return nil
        case .refusedForRedirects, .refused: break
        }
        guard url.scheme?.lowercased() == "http" else { return nil }
        let host = url.host(percentEncoded: false) ?? ""
        if exceptions.matches(host: host) { return nil }
        let what = isRedirect ? "a redirect to plain http" : "plain http"
        // The host alone: a URL's user information must not end up in a message.
        return "The session's transport security policy refuses \(what) to \(host.prefix(200)): only https, except for the hosts it lists"
    }

    /// `configuration` with this policy's TLS rules applied.
    func applied(to configuration: TLSConfiguration) -> TLSConfiguration {
        var configuration = configuration
        configuration.minimumVersion = max(configuration.minimumVersion, minimumTLSVersion)
        if requiresForwardSecrecy { configuration.requiresForwardSecrecy = true }
        return configuration
    }
}
