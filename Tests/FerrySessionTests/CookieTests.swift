// Cookie as a value: the checks of its public initializer, its identity (ID) against its
// equality, the matching rules it is looked up by, and the Public Suffix List it is checked
// against.
import Foundation
import Testing

@testable import FerrySession

@Suite("Cookie values")
struct CookieTests {
    @Test func aPlainCookieIsHostOnlyAtTheRootAndSessionOnly() throws {
        let cookie = try Cookie(name: "id", value: "42", domain: "WWW.Example.COM")
        #expect(cookie.domain == "www.example.com")
        #expect(cookie.path == "/")
        #expect(cookie.isHostOnly)
        #expect(cookie.isSessionOnly && cookie.expiresDate == nil)
        #expect(!cookie.isSecure && !cookie.isHTTPOnly && cookie.sameSite == nil)
        #expect(cookie.lastAccessDate == cookie.creationDate)
    }

    @Test func aLeadingDotMakesADomainCookieAsHTTPCookieDoes() throws {
        let cookie = try Cookie(name: "id", value: "42", domain: ".example.com")
        #expect(cookie.domain == "example.com")
        #expect(!cookie.isHostOnly)
        let explicit = try Cookie(name: "id", value: "42", domain: "example.com", isHostOnly: false)
        #expect(!explicit.isHostOnly)
        let forced = try Cookie(name: "id", value: "42", domain: ".example.com", isHostOnly: true)
        #expect(forced.isHostOnly)
    }

    @Test func anIPAddressIsAlwaysHostOnly() throws {
        #expect(try Cookie(name: "a", value: "b", domain: "127.0.0.1", isHostOnly: false).isHostOnly)
        let v6 = try Cookie(name: "a", value: "b", domain: "[::1]", isHostOnly: false)
        #expect(v6.isHostOnly && v6.domain == "::1")
    }

    @Test("names that cannot be sent are refused",
          arguments: ["a;b", "a=b", "a\u{0}b", "a\tb", "a\r\nSet-Cookie: x", "a\u{7F}", " a", "a "])
    func invalidNames(_ name: String) {
        #expect(throws: Cookie.ValidationError.invalidName(name)) {
            try Cookie(name: name, value: "v", domain: "example.com")
        }
    }

    @Test("values that cannot be sent are refused", arguments: ["a;b", "a\nb", "a\rb", "\u{1}", "a\tb", " a", "a "])
    func invalidValues(_ value: String) {
        #expect(throws: Cookie.ValidationError.invalidValue) {
            try Cookie(name: "n", value: value, domain: "example.com")
        }
    }

    @Test func valuesMayHoldWhatServersSend() throws {
        let cookie = try Cookie(name: "n", value: "\"quoted, with=equals and spaces\"", domain: "example.com")
        #expect(cookie.value == "\"quoted, with=equals and spaces\"")
        #expect(cookie.cookieFieldEntry == "n=\"quoted, with=equals and spaces\"")
    }

    @Test func aNamelessCookieIsItsValueInTheCookieField() throws {
        let cookie = try Cookie(name: "", value: "token", domain: "example.com")
        #expect(cookie.cookieFieldEntry == "token")
        #expect(throws: Cookie.ValidationError.emptyNameAndValue) {
            try Cookie(name: "", value: "", domain: "example.com")
        }
    }

    @Test func nameAndValueTogetherAreLimitedTo4096Bytes() throws {
        _ = try Cookie(name: "n", value: String(repeating: "v", count: 4095), domain: "example.com")
        #expect(throws: Cookie.ValidationError.tooLarge(bytes: 4097)) {
            try Cookie(name: "nn", value: String(repeating: "v", count: 4095), domain: "example.com")
        }
    }

    @Test("domains a host name cannot be are refused",
          arguments: ["", ".", "exa mple.com", "example.com;", "ex\tample.com", "exämple.com", "a/b", String(repeating: "a", count: 254)])
    func invalidDomains(_ domain: String) {
        #expect(throws: Cookie.ValidationError.invalidDomain(domain)) {
            try Cookie(name: "n", value: "v", domain: domain)
        }
    }

    @Test("paths must start with a slash and hold no control character or semicolon",
          arguments: ["", "docs", "/a;b", "/a\nb", "/" + String(repeating: "p", count: 1024)])
    func invalidPaths(_ path: String) {
        #expect(throws: Cookie.ValidationError.invalidPath(path)) {
            try Cookie(name: "n", value: "v", domain: "example.com", path: path)
        }
    }

    @Test func prefixedNamesFollowTheirRulesInAnyCase() throws {
        _ = try Cookie(name: "__Secure-id", value: "1", domain: "example.com", isSecure: true)
        _ = try Cookie(name: "__Host-id", value: "1", domain: "example.com", path: "/", isSecure: true)
        #expect(throws: Cookie.ValidationError.prefixRequirementsNotMet("__secure-id")) {
            try Cookie(name: "__secure-id", value: "1", domain: "example.com")
        }
        #expect(throws: Cookie.ValidationError.prefixRequirementsNotMet("__HOST-id")) {
            try Cookie(name: "__HOST-id", value: "1", domain: ".example.com", isSecure: true)
        }
        #expect(throws: Cookie.ValidationError.prefixRequirementsNotMet("__Host-id")) {
            try Cookie(name: "__Host-id", value: "1", domain: "example.com", path: "/x", isSecure: true)
        }
        #expect(throws: Cookie.ValidationError.prefixRequirementsNotMet("")) {
            try Cookie(name: "", value: "__Host-id", domain: "example.com", isSecure: true)
        }
    }

    @Test func identityIsNameDomainHostOnlyAndPathWhileEqualityIsEveryProperty() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let a = try Cookie(name: "id", value: "1", domain: "example.com", creationDate: date)
        let b = try Cookie(name: "id", value: "2", domain: "example.com", creationDate: date)
        let domainCookie = try Cookie(name: "id", value: "1", domain: ".example.com", creationDate: date)
        let otherPath = try Cookie(name: "id", value: "1", domain: "example.com", path: "/x", creationDate: date)
        #expect(a.id == b.id)
        #expect(a != b)
        #expect(a.id != domainCookie.id)
        #expect(a.id != otherPath.id)
        #expect(a == (try Cookie(name: "id", value: "1", domain: "example.com", creationDate: date)))
        #expect(Set([a, b, domainCookie]).count == 3)
        #expect(Dictionary([(a.id, a), (b.id, b)], uniquingKeysWith: { _, new in new })[a.id]?.value == "2")
    }

    // MARK: - Matching rules (RFC 6265bis §5.1.3, §5.1.4)

    @Test func domainMatching() {
        #expect(CookieRequest.domainMatches("example.com", "example.com", hostIsIPAddress: false))
        #expect(CookieRequest.domainMatches("www.example.com", "example.com", hostIsIPAddress: false))
        #expect(CookieRequest.domainMatches("a.b.example.com", "example.com", hostIsIPAddress: false))
        #expect(!CookieRequest.domainMatches("wwwexample.com", "example.com", hostIsIPAddress: false))
        #expect(!CookieRequest.domainMatches("example.com", "www.example.com", hostIsIPAddress: false))
        #expect(!CookieRequest.domainMatches("example.com", "", hostIsIPAddress: false))
        #expect(CookieRequest.domainMatches("1.2.3.4", "1.2.3.4", hostIsIPAddress: true))
        #expect(!CookieRequest.domainMatches("1.2.3.4", "2.3.4", hostIsIPAddress: true))
    }

    @Test func pathMatching() {
        #expect(CookieRequest.pathMatches("/docs", "/docs"))
        #expect(CookieRequest.pathMatches("/docs/", "/docs"))
        #expect(CookieRequest.pathMatches("/docs/page", "/docs"))
        #expect(CookieRequest.pathMatches("/docs/page", "/docs/"))
        #expect(CookieRequest.pathMatches("/anything", "/"))
        #expect(!CookieRequest.pathMatches("/docsx", "/docs"))
        #expect(!CookieRequest.pathMatches("/doc", "/docs"))
        #expect(!CookieRequest.pathMatches("/", "/docs"))
        #expect(!CookieRequest.pathMatches("/Docs", "/docs"))
    }

    @Test("the default path", arguments: [
        ("", "/"), ("/", "/"), ("/page", "/"), ("/docs/", "/docs"), ("/docs/page", "/docs"),
        ("/a/b/c", "/a/b"), ("relative/x", "/"), ("//x", "/"),
    ])
    func defaultPath(_ requestPath: String, _ expected: String) {
        #expect(CookieRequest.defaultPath(requestPath) == expected)
    }

    @Test func ipAddressesAreRecognized() {
        #expect(CookieRequest.isIPAddress("127.0.0.1"))
        #expect(CookieRequest.isIPAddress("::1"))
        #expect(CookieRequest.isIPAddress("fe80::1"))
        #expect(!CookieRequest.isIPAddress("example.com"))
        #expect(!CookieRequest.isIPAddress("1.2.3.example"))
        #expect(!CookieRequest.isIPAddress("localhost"))
    }

    @Test func requestsCanonicalizeTheirURL() throws {
        let request = try #require(CookieRequest(url: URL(string: "HTTPS://WWW.Example.COM:8443")!))
        #expect(request.host == "www.example.com")
        #expect(request.path == "/")
        #expect(request.isSecure && !request.isIPAddress)
        let v6 = try #require(CookieRequest(url: URL(string: "http://[::1]:8080/a/b?q=1")!))
        #expect(v6.host == "::1" && v6.path == "/a/b" && v6.isIPAddress)
        #expect(v6.isSecure, "http to the loopback address is a secure context, as curl has it")
        #expect(CookieRequest(url: URL(string: "http://localhost/")!)?.isSecure == true)
        #expect(CookieRequest(url: URL(string: "http://example.com/")!)?.isSecure == false)
        #expect(CookieRequest(url: URL(string: "file:///tmp/x")!) == nil)
    }

    // MARK: - Public Suffix List (libpsl)

    @Test func theSystemListHasData() {
        #expect(PublicSuffixList.system.hasData)
    }

    @Test("public suffixes", arguments: ["com", "co.uk", "github.io", "uk", "localhost"])
    func publicSuffixes(_ name: String) {
        #expect(PublicSuffixList.system.isPublicSuffix(name))
    }

    @Test("not public suffixes", arguments: ["example.com", "example.co.uk", "x.github.io", "www.ck"])
    func notPublicSuffixes(_ name: String) {
        #expect(!PublicSuffixList.system.isPublicSuffix(name))
    }

    @Test func registrableDomains() {
        let list = PublicSuffixList.system
        #expect(list.registrableDomain(of: "www.example.co.uk") == "example.co.uk")
        #expect(list.registrableDomain(of: "a.b.example.com") == "example.com")
        #expect(list.registrableDomain(of: "x.github.io") == "x.github.io")
        #expect(list.registrableDomain(of: "co.uk") == nil)
        #expect(list.registrableDomain(of: "127.0.0.1") == nil)
        #expect(list.registrableDomain(of: "::1") == nil)
    }

    @Test func cookieDomainAcceptance() {
        let list = PublicSuffixList.system
        #expect(list.isCookieDomainAcceptable("example.co.uk", forHost: "www.example.co.uk"))
        #expect(!list.isCookieDomainAcceptable("co.uk", forHost: "www.example.co.uk"))
        #expect(!list.isCookieDomainAcceptable("github.io", forHost: "x.github.io"))
        #expect(!list.isCookieDomainAcceptable("com", forHost: "a.b.com"))
        #expect(!list.isCookieDomainAcceptable("2.3.4", forHost: "1.2.3.4"))
        #expect(!list.isCookieDomainAcceptable("ex\u{0}ample.com", forHost: "www.example.com"))
    }

    @Test func withoutDataOneLabelNamesArePublicSuffixes() {
        let list = PublicSuffixList.withoutData()
        #expect(!list.hasData)
        #expect(list.isPublicSuffix("com"))
        #expect(!list.isPublicSuffix("example.com"))
        #expect(list.registrableDomain(of: "a.b.example.com") == "example.com")
        #expect(list.registrableDomain(of: "localhost") == nil)
        #expect(list.isCookieDomainAcceptable("example.com", forHost: "www.example.com"))
        #expect(!list.isCookieDomainAcceptable("com", forHost: "www.example.com"))
        #expect(!list.isCookieDomainAcceptable("0.0.1", forHost: "127.0.0.1"))
    }
}
