import FoundationEssentials

/// Which HTTP proxy a session's requests go through: URLSessionConfiguration's
/// `connectionProxyDictionary`, curl's `-x`, `--noproxy` and proxy variables.
///
/// http URLs are sent to the proxy in absolute form; https URLs go through a CONNECT tunnel,
/// with TLS to the server inside it (server name, trust evaluation and pinning as without a
/// proxy). A proxy URL's user and password are sent to it with Basic before it asks; a proxy
/// that asks (407) is answered through the task's authentication challenge, with a
/// ``ProtectionSpace`` whose ``ProtectionSpace/isProxy`` is true.
///
/// ```swift
/// var configuration = SessionConfiguration.default
/// configuration.proxy = .http(URL(string: "http://user:secret@proxy.internal:3128")!,
///                             bypass: ["localhost", ".internal", "10.0.0.0/8"])
/// ```
public struct ProxyConfiguration: Sendable {
    /// Where the proxy comes from.
    enum Source: Sendable, Equatable {
        case none
        case environment
        case server(URL)
    }

    /// Where the proxy comes from.
    let source: Source
    /// Hosts reached without the proxy, as `no_proxy` entries: a name (matching itself and its
    /// subdomains; a leading dot changes nothing), an IP address, a CIDR range (`10.0.0.0/8`,
    /// `fd00::/8`), or `*` for every host. Ports play no part. nil: the environment's
    /// `no_proxy` (or `NO_PROXY`), for a proxy of the caller's too, as curl and libcurl read
    /// it; a list replaces it (curl's `--noproxy`), and `[]` bypasses nothing.
    public var bypass: [String]?

    /// The user and password for the proxy, whatever its source (curl's `--proxy-user`): sent
    /// up front with Basic, instead of a proxy URL's own. nil uses the URL's, if any.
    public var credential: Credential?

    /// No proxy: every request connects to its server.
    public static let none = ProxyConfiguration(source: .none, bypass: nil, credential: nil)

    /// The proxy the environment names, read once when the session is made, as curl reads it:
    /// `http_proxy` for http URLs (lower case only: `HTTP_PROXY` can be set by a CGI request's
    /// `Proxy:` header), `https_proxy` or `HTTPS_PROXY` for https, else `all_proxy` or
    /// `ALL_PROXY`; `no_proxy` or `NO_PROXY` lists the hosts reached directly. The default,
    /// as for curl and for URLSession on Linux.
    public static let environment = ProxyConfiguration(source: .environment, bypass: nil, credential: nil)

    /// Every request through the HTTP proxy at `url` (`http://[user:password@]host[:port]`;
    /// without a scheme, `http://` is assumed; the port defaults to 1080, as curl's), except
    /// for the hosts in `bypass` (nil: those in the environment's `no_proxy`).
    public static func http(_ url: URL, bypass: [String]? = nil) -> ProxyConfiguration {
        ProxyConfiguration(source: .server(url), bypass: bypass, credential: nil)
    }
}
