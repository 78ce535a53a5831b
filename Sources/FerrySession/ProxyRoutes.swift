import FerryBase
import FerryEngine
import FoundationEssentials
import Synchronization

/// A session's proxies, settled once from its ``ProxyConfiguration`` (and the environment):
/// which proxy, if any, carries a request for a URL.
struct ProxyRoutes: Sendable {
    /// No proxy at all: every request connects directly.
    static let direct = ProxyRoutes(http: nil, https: nil, bypass: [])

    /// The proxy for http URLs: the server, or why it cannot be used.
    private let http: Result<ProxyServer, ProxyURLError>?
    /// The proxy for https URLs.
    private let https: Result<ProxyServer, ProxyURLError>?
    /// Hosts reached directly.
    private let bypass: [NoProxyList]
    /// Basic answers each proxy accepted, sent up front to it from then on.
    private let answers = ProxyAnswers()

    private init(http: Result<ProxyServer, ProxyURLError>?, https: Result<ProxyServer, ProxyURLError>?, bypass: [NoProxyList]) {
        self.http = http
        self.https = https
        self.bypass = bypass
        isDirect = http == nil && https == nil
    }

    /// The routes `configuration` names; `.environment` reads `environment`.
    init(_ configuration: ProxyConfiguration, environment: @autoclosure () -> [String: String]) {
        let own = configuration.bypass.map { NoProxyList($0.joined(separator: ",")) }
        let credential = configuration.credential
        func server(_ url: URL) -> Result<ProxyServer, ProxyURLError> {
            ProxyServer.parse(url).map { server in
                guard let credential else { return server }
                var server = server
                server.user = credential.user
                server.password = credential.password
                return server
            }
        }
        switch configuration.source {
        case .none:
            self = .direct
        case .server(let url):
            let named = server(url)
            self.init(http: named, https: named, bypass: [own ?? ProxyEnvironment(environment()).noProxy])
        case .environment:
            let named = ProxyEnvironment(environment())
            self.init(http: named.http.map { $0.flatMap(server) }, https: named.https.map { $0.flatMap(server) },
                      bypass: [own ?? named.noProxy])
        }
    }

    /// Whether no request can go through a proxy (asked on every request: stored).
    let isDirect: Bool

    /// The proxy for a request to `host` over `scheme` (`http` or `https`), or nil to connect
    /// directly.
    /// - Throws: The proxy named for it cannot be used (an unsupported scheme, no host).
    func proxy(scheme: String, host: String) throws(ProxyURLError) -> ProxyServer? {
        guard let named = scheme == "https" ? https : http else { return nil }
        if bypass.contains(where: { $0.matches(host: host) }) { return nil }
        return try named.get()
    }
}

extension ProxyRoutes {
    /// The Basic answer `proxy` accepted last, to send before it asks again.
    func rememberedAuthorization(for proxy: ProxyServer) -> String? {
        answers.values.withLock { $0[ProxyAnswers.key(proxy.host, proxy.port)] }
    }

    /// The proxy at `host`:`port` accepted `authorization` (Basic): later requests through
    /// it carry it up front, as URLSession keeps a proxy's credential, instead of paying a
    /// 407 each.
    func remember(_ authorization: String, forProxyAt host: String, port: Int) {
        answers.values.withLock { $0[ProxyAnswers.key(host, port)] = authorization }
    }

    /// The proxy at `host`:`port` asked again (407): what was remembered for it no longer holds.
    func forgetAuthorization(forProxyAt host: String, port: Int) {
        _ = answers.values.withLock { $0.removeValue(forKey: ProxyAnswers.key(host, port)) }
    }
}

/// The Basic answers proxies accepted, by `host:port`, for a session.
final class ProxyAnswers: Sendable {
    let values = Locked<[String: String]>([:])

    static func key(_ host: String, _ port: Int) -> String { "\(host.lowercased()):\(port)" }
}

/// An HTTP proxy: where it listens, and the credential its URL carries.
struct ProxyServer: Sendable, Equatable {
    /// Host name or address literal, lower-cased, without brackets.
    var host: String
    /// TCP port.
    var port: Int
    /// The user and password of the proxy URL (percent-decoded), sent with Basic up front.
    var user: String?
    var password: String?

    /// The URL's user and password, offered when the proxy asks (and sent up front with Basic).
    var credential: Credential? {
        guard let user else { return nil }
        return Credential(user: user, password: password ?? "", persistence: .none)
    }

    /// The port curl assumes for a proxy URL without one.
    static let defaultPort = 1080

    /// The server `url` names (`http://` is assumed without a scheme).
    static func parse(_ url: URL) -> Result<ProxyServer, ProxyURLError> {
        var url = url
        if url.scheme == nil || url.host(percentEncoded: false) == nil,
           let withScheme = URL(string: "http://" + url.absoluteString) {
            url = withScheme
        }
        let scheme = url.scheme?.lowercased() ?? "http"
        let host = url.host(percentEncoded: false) ?? ""
        guard scheme == "http" else { return .failure(ProxyURLError(host: host, reason: .unsupportedScheme(scheme))) }
        guard !host.isEmpty else { return .failure(ProxyURLError(host: host, reason: .noHost)) }
        let port = url.port ?? defaultPort
        guard (1...65535).contains(port) else { return .failure(ProxyURLError(host: host, reason: .badPort(port))) }
        let user = url.user(percentEncoded: false)
        return .success(ProxyServer(
            host: String(HostName.unbracketed(host)).lowercased(), port: port, user: user,
            password: user == nil ? nil : url.password(percentEncoded: false) ?? ""))
    }
}

/// A proxy URL that cannot be used.
struct ProxyURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why not.
    enum Reason: Sendable, Equatable {
        case unsupportedScheme(String)
        case noHost
        case badPort(Int)
        case malformed
    }

    /// The proxy's host, as its URL names it.
    var host: String
    /// Why it cannot be used.
    var reason: Reason

    /// A sentence naming the proxy (never its credential).
    var description: String {
        switch reason {
        case .unsupportedScheme(let scheme):
            return "proxy \(host) uses \(scheme)://, which Ferry does not speak (only http:// proxies)"
        case .noHost: return "proxy URL names no host"
        case .badPort(let port): return "proxy \(host) port \(port) is out of range"
        case .malformed: return "the proxy \(host) is not a URL (a request it would carry is not sent directly instead)"
        }
    }
}
