// The proxy environment and no_proxy list as curl reads them (issue 19): which variables count
// (http_proxy in lower case only), defaults, and the no_proxy matching rules, with curl's own
// unit-test cases of names, dots, CIDR ranges and `*`.
import Foundation
import Testing

@testable import FerrySession

@Suite("Proxy environment")
struct ProxyEnvironmentTests {
    @Test("which variables name the proxy for http and https, lower case first")
    func variables() throws {
        let environment = ProxyEnvironment([
            "HTTP_PROXY": "http://cgi-injected:1/",  // httpoxy: never read
            "https_proxy": "secure.example:3129", "HTTPS_PROXY": "ignored:1",
            "ALL_PROXY": "http://all.example:8080",
        ])
        #expect(try environment.http?.get().absoluteString == "http://all.example:8080", "HTTP_PROXY is not read")
        #expect(try environment.https?.get().absoluteString == "http://secure.example:3129", "no scheme means http://")
        let routes = ProxyRoutes(.environment, environment: ["https_proxy": "secure.example:3129"])
        #expect(try routes.proxy(scheme: "https", host: "api.example.com")?.host == "secure.example")
        #expect(try routes.proxy(scheme: "http", host: "api.example.com") == nil)
        let none = ProxyEnvironment(["http_proxy": "", "all_proxy": "  "])
        #expect(none.http == nil && none.https == nil, "an empty value counts as unset")
    }

    @Test("no_proxy keeps listed hosts off the proxy")
    func bypass() throws {
        let routes = ProxyRoutes(.environment, environment: [
            "http_proxy": "proxy.local:3128", "NO_PROXY": "localhost, .internal.example,10.0.0.0/8",
        ])
        #expect(try routes.proxy(scheme: "http", host: "localhost") == nil)
        #expect(try routes.proxy(scheme: "http", host: "db.internal.example") == nil)
        #expect(try routes.proxy(scheme: "http", host: "10.1.2.3") == nil)
        #expect(try routes.proxy(scheme: "http", host: "example.com")?.host == "proxy.local")
        let everything = ProxyRoutes(.environment, environment: ["http_proxy": "p:1", "no_proxy": "*"])
        #expect(try everything.proxy(scheme: "http", host: "any.example") == nil)
    }

    @Test("no_proxy matching, as curl's unit tests state it", arguments: [
        ("www.example.com", "localhost,.example.com,.example.de", true),
        ("www.example.com", "localhost,www.example.com.,.example.de", true),
        ("example.com", "localhost,.example.com,.example.de", true),
        ("example.com", "localhost,www.example.com,.example.de", false),
        ("www.example.com", "localhost,example.com,.example.de", true),
        ("www.example.com.", "localhost,example.com,.example.de", true),
        ("nexample.com", "localhost,example.com,.example.de", false),
        ("www.example.org", "localhost,.example.com,.example.de", false),
        ("WWW.EXAMPLE.COM", "Example.Com", true),
        ("127.0.0.1", "127.0.0.1,localhost", true),
        ("127.0.0.1", "127.0.0.1/8,localhost", true),
        ("127.0.0.1", "127.0.0.0/8,localhost", true),
        ("127.0.0.1", "127.0.0.0/32,localhost", false),
        ("127.0.0.1", "localhost", false),
        ("10.0.0.1", "10.0.0.0/33", false),
        ("192.168.1.1", "192.168.0.0/16", true),
        ("192.168.1.1", "192.168.0.0/24", false),
        ("[::1]", "::1", true),
        ("::1", "::1/128", true),
        ("fe80::1", "fe80::/10", true),
        ("fe80::1", "fd00::/8", false),
        ("fd12:3456::1", "fd00::/8", true),
        ("::1", "127.0.0.1", false),
        ("127.0.0.1", "::1", false),
        ("example.com", "example.com:8080", false),
        ("a.example", "b.example c.example, a.example", false),
        ("a.example", "b.example , a.example", true),
        ("a.example", ",,a.example,,", true),
        ("anything.example", "*", true),
        ("anything.example", "*,x", false),
        ("anything.example", "", false),
    ])
    func curlCases(host: String, list: String, bypassed: Bool) {
        #expect(NoProxyList(list).matches(host: host) == bypassed)
    }
}
