// Which proxy carries a request (ProxyConfiguration → ProxyRoutes), and what the request looks
// like on its way there (RequestPreparation): absolute form and the proxy's credential for a
// forwarding proxy, a tunnel key with CONNECT's fields for https, never Proxy-Connection.
import Foundation
import HTTPTypes
import Testing

@testable import FerryEngine
@testable import FerrySession

@Suite("Proxy routes")
struct ProxyRoutesTests {
    static let proxyURL = URL(string: "http://alice:s%40cret@Proxy.Example:3128")!

    @Test("an http proxy URL: host lower-cased, curl's default port, its user and password decoded")
    func proxyURLParts() throws {
        let routes = ProxyRoutes(.http(Self.proxyURL), environment: [:])
        let server = try #require(try routes.proxy(scheme: "https", host: "api.example.com"))
        #expect(server.host == "proxy.example" && server.port == 3128)
        #expect(server.user == "alice" && server.password == "s@cret")
        let bare = try #require(try ProxyRoutes(.http(URL(string: "http://[::1]")!), environment: [:]).proxy(scheme: "http", host: "a"))
        #expect(bare.host == "::1" && bare.port == 1080 && bare.user == nil)
        #expect(ProxyRoutes(.none, environment: ["http_proxy": "p:1"]).isDirect, ".none ignores the environment")
    }

    @Test("a bypass list keeps hosts off the proxy; with the environment it replaces no_proxy")
    func bypass() throws {
        var configuration = ProxyConfiguration.http(Self.proxyURL, bypass: ["localhost", ".corp.example", "10.0.0.0/8"])
        var routes = ProxyRoutes(configuration, environment: [:])
        #expect(try routes.proxy(scheme: "http", host: "build.corp.example") == nil)
        #expect(try routes.proxy(scheme: "https", host: "10.9.8.7") == nil)
        #expect(try routes.proxy(scheme: "https", host: "example.com") != nil)
        let named = ProxyConfiguration.http(Self.proxyURL)
        #expect(try ProxyRoutes(named, environment: ["no_proxy": "a.example"]).proxy(scheme: "http", host: "a.example") == nil,
                "a proxy of the caller's still honours no_proxy, as curl's -x does")
        #expect(try ProxyRoutes(.http(Self.proxyURL, bypass: []), environment: ["no_proxy": "a.example"])
            .proxy(scheme: "http", host: "a.example") != nil)
        configuration = .environment
        configuration.bypass = ["example.com"]
        routes = ProxyRoutes(configuration, environment: ["all_proxy": "p:1", "no_proxy": "other.example"])
        #expect(try routes.proxy(scheme: "http", host: "www.example.com") == nil)
        #expect(try routes.proxy(scheme: "http", host: "other.example") != nil, "--noproxy replaces no_proxy, as curl")
    }

    @Test("a credential given to the configuration replaces the proxy URL's")
    func credentialOverride() throws {
        var configuration = ProxyConfiguration.environment
        configuration.credential = Credential(user: "bob", password: "pw", persistence: .none)
        let server = try #require(try ProxyRoutes(configuration, environment: ["https_proxy": "http://alice:x@p:1"])
            .proxy(scheme: "https", host: "a.example"))
        #expect(server.user == "bob" && server.password == "pw")
    }

    @Test("a proxy Ferry cannot speak fails the request with words that name it, never its password")
    func unsupportedProxy() throws {
        let routes = ProxyRoutes(.environment, environment: ["all_proxy": "socks5h://user:hunter2@socks.example:1080"])
        #expect(throws: ProxyURLError.self) { try routes.proxy(scheme: "https", host: "a.example") }
        let request = NetworkRequest(url: URL(string: "https://a.example/")!)
        do {
            _ = try RequestPreparation.exchangeRequest(for: request, configuration: .default, proxies: routes)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == .unsupportedURL)
            #expect(error.reason.contains("socks5h") && error.reason.contains("socks.example"), "\(error.reason)")
            #expect(!error.reason.contains("hunter2"))
        }
    }

    @Test("http through a proxy: absolute form, one pool per proxy, its credential up front, no Proxy-Connection")
    func forwardedRequest() throws {
        var request = NetworkRequest(url: URL(string: "http://Origin.Example:8080/a/b?q=1#frag")!)
        request.headerFields[HTTPField.Name("Proxy-Connection")!] = "keep-alive"
        let exchange = try RequestPreparation.exchangeRequest(
            for: request, configuration: .default, proxies: ProxyRoutes(.http(Self.proxyURL), environment: [:]))
        #expect(exchange.head.target == "http://Origin.Example:8080/a/b?q=1", "the authority as Host has it")
        #expect(exchange.head.host == "Origin.Example:8080")
        #expect(exchange.key == PoolKey(scheme: "http", host: "proxy.example", port: 3128, route: .forwardingProxy))
        #expect(exchange.head.headerFields[.proxyAuthorization] == "Basic YWxpY2U6c0BjcmV0")
        #expect(exchange.head.headerFields[HTTPField.Name("Proxy-Connection")!] == nil)
    }

    @Test("https through a proxy: a tunnel key to the origin; the credential goes with CONNECT only")
    func tunnelledRequest() throws {
        var request = NetworkRequest(url: URL(string: "https://[2001:db8::1]/x")!)
        request.headerFields[.proxyAuthorization] = "Basic Y2FsbGVyOmtleQ=="
        let exchange = try RequestPreparation.exchangeRequest(
            for: request, configuration: .default, proxies: ProxyRoutes(.http(Self.proxyURL), environment: [:]))
        #expect(exchange.head.target == "/x")
        #expect(exchange.head.headerFields[.proxyAuthorization] == nil, "never sent to the origin")
        guard case .tunnel(let proxy) = exchange.key.route else {
            Issue.record("expected a tunnel, got \(exchange.key)")
            return
        }
        #expect(exchange.key.host == "2001:db8::1" && exchange.key.port == 443)
        #expect(proxy.host == "proxy.example" && proxy.port == 3128)
        #expect(proxy.connectFields[.proxyAuthorization] == "Basic Y2FsbGVyOmtleQ==", "the caller's own answer wins")
        #expect(proxy.connectFields[.userAgent] == SessionConfiguration.ferryProduct)
    }

    @Test("a host that is neither a name nor an IP literal is refused before it can name another host to a proxy",
          arguments: ["http://allowed.example%40internal.corp/x", "https://a%3A22/", "http://a%2Fb/", "http://a%23b/"])
    func decodedHostsAreRefused(_ text: String) throws {
        let request = NetworkRequest(url: try #require(URL(string: text)))
        #expect(throws: NetworkError.self) {
            try RequestPreparation.exchangeRequest(for: request, configuration: .default, proxies: ProxyRoutes(.http(Self.proxyURL), environment: [:]))
        }
        for host in ["example.com", "127.0.0.1", "::1", "2001:db8::1", "under_score.example"] {
            #expect(RequestPreparation.isHostNameOrAddress(host), "\(host)")
        }
    }

    @Test("a proxy variable that is not a URL fails the requests it would carry instead of sending them direct")
    func malformedEnvironmentProxy() {
        let routes = ProxyRoutes(.environment, environment: ["https_proxy": "http://user:pw@[::1"])
        #expect(throws: ProxyURLError.self) { try routes.proxy(scheme: "https", host: "a.example") }
        #expect((try? routes.proxy(scheme: "http", host: "a.example")) == .some(nil), "http has no proxy named")
    }

    @Test("a cross-origin redirect drops the proxy's credential, even when the caller trusts redirects with its own")
    func redirectsDropTheProxyCredential() throws {
        var request = NetworkRequest(url: URL(string: "http://a.example/")!)
        request.headerFields[.proxyAuthorization] = "Basic eDp5"
        request.headerFields[.authorization] = "Basic b3JpZ2luOmtleQ=="
        var configuration = SessionConfiguration.default
        configuration.redirectsKeepCredentials = true
        guard case .follow(let next) = RedirectPolicy.decide(status: 302, location: "https://b.example/", request: request,
                                                             followed: 0, configuration: configuration) else {
            Issue.record("expected the redirect to be followed")
            return
        }
        #expect(next.headerFields[.proxyAuthorization] == nil)
        #expect(next.headerFields[.authorization] == "Basic b3JpZ2luOmtleQ==", "location-trusted keeps the origin's")
    }
}
