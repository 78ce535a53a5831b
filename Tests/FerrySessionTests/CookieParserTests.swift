// Set-Cookie processing, pure (RFC 6265bis §5.6 and the request-side steps of §5.7): how a
// field splits into name, value and attributes, and which cookie — or which refusal — each
// attribute leads to. The clock is fixed; the Public Suffix List is Debian's.
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Set-Cookie parsing (RFC 6265bis §5.6, §5.7)")
struct CookieParserTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let page = "https://www.example.com/docs/page"

    static func parse(_ field: String, _ url: String = page) -> Result<Cookie, SetCookieRejection> {
        SetCookieParser.parse(field, url: URL(string: url)!, now: now)
    }

    static func cookie(_ field: String, _ url: String = page) throws -> Cookie {
        try parse(field, url).get()
    }

    static func rejection(_ field: String, _ url: String = page) -> SetCookieRejection? {
        if case .failure(let rejection) = parse(field, url) { return rejection }
        return nil
    }

    // MARK: - The RFC's examples (§3.1)

    @Test func aSessionIdentifier() throws {
        let cookie = try Self.cookie("SID=31d4d96e407aad42")
        #expect(cookie.name == "SID" && cookie.value == "31d4d96e407aad42")
        #expect(cookie.domain == "www.example.com" && cookie.isHostOnly)
        #expect(cookie.path == "/docs", "the default-path of /docs/page")
        #expect(cookie.isSessionOnly)
        #expect(cookie.creationDate == Self.now && cookie.lastAccessDate == Self.now)
    }

    @Test func pathAndDomainWidenTheScope() throws {
        let cookie = try Self.cookie("SID=31d4d96e407aad42; Path=/; Domain=example.com")
        #expect(cookie.domain == "example.com" && !cookie.isHostOnly && cookie.path == "/")
    }

    @Test func secureAndHttpOnly() throws {
        let cookie = try Self.cookie("SID=31d4d96e407aad42; Path=/; Secure; HttpOnly")
        #expect(cookie.isSecure && cookie.isHTTPOnly)
    }

    @Test func anExpiresDate() throws {
        let cookie = try Self.cookie("lang=en-US; Expires=Wed, 09 Jun 2024 10:18:14 GMT")
        #expect(cookie.expiresDate == Date(timeIntervalSince1970: 1_717_928_294))
        #expect(!cookie.isSessionOnly)
    }

    // MARK: - Name and value

    @Test("name and value", arguments: [
        ("a=b", "a", "b"),
        ("a=b=c", "a", "b=c"),
        ("  a  =  b  ; Path=/", "a", "b"),
        ("\ta\t=\tb\tc\t", "a", "b\tc"),
        ("a b=c d", "a b", "c d"),
        ("a=\"quoted value\"", "a", "\"quoted value\""),
        ("a=", "a", ""),
        ("=abc", "", "abc"),
        ("abc", "", "abc"),
        ("abc; Path=/", "", "abc"),
        ("a=b,c=d", "a", "b,c=d"),
        ("ünï=cödé", "ünï", "cödé"),
    ])
    func nameAndValue(_ field: String, _ name: String, _ value: String) throws {
        let cookie = try Self.cookie(field)
        #expect(cookie.name == name)
        #expect(cookie.value == value)
    }

    @Test("empty name and value is no cookie", arguments: ["", "=", " = ", ";", "; Path=/", "\t"])
    func emptyNameAndValue(_ field: String) {
        #expect(Self.rejection(field) == .emptyNameAndValue)
    }

    @Test("control characters other than HTAB void the field",
          arguments: ["a=b\u{0}c", "a=b\rc", "a=b\nSet-Cookie: evil=1", "a\u{1}=b", "a=b; Path=/\u{7F}", "a=b\u{1F}"])
    func controlCharacters(_ field: String) {
        #expect(Self.rejection(field) == .controlCharacter)
    }

    @Test func nameAndValueAreLimitedTo4096Bytes() throws {
        _ = try Self.cookie("n=" + String(repeating: "v", count: 4095))
        #expect(Self.rejection("nn=" + String(repeating: "v", count: 4095)) == .tooLarge(bytes: 4097))
        #expect(Self.rejection(String(repeating: "x", count: 100_000)) == .tooLarge(bytes: 100_000))
    }

    @Test func anAttributeValueOver1024BytesIsIgnored() throws {
        let long = "/" + String(repeating: "p", count: 1024)
        #expect(try Self.cookie("a=b; Path=\(long)").path == "/docs")
        #expect(try Self.cookie("a=b; Path=/x; Path=\(long)").path == "/x")
        #expect(try Self.cookie("a=b; Path=" + "/" + String(repeating: "p", count: 1023)).path.utf8.count == 1024)
        #expect(try Self.cookie("a=b; Domain=\(String(repeating: "a", count: 1020)).example.com").isHostOnly)
    }

    // MARK: - Attributes

    @Test func attributeNamesIgnoreCaseAndUnknownOnesAreIgnored() throws {
        let cookie = try Self.cookie("a=b; PATH=/x; SECURE; httponly; domain=EXAMPLE.COM; Priority=High; Partitioned; ;;")
        #expect(cookie.path == "/x" && cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.domain == "example.com" && !cookie.isHostOnly)
    }

    @Test func theLastOfEachAttributeCounts() throws {
        #expect(try Self.cookie("a=b; Path=/x; Path=/y").path == "/y")
        #expect(try Self.cookie("a=b; Domain=example.com; Domain=www.example.com").domain == "www.example.com")
        #expect(try Self.cookie("a=b; SameSite=Strict; SameSite=Lax").sameSite == .lax)
    }

    @Test("SameSite is kept, unknown values as none", arguments: [
        ("Strict", Cookie.SameSite.strict), ("lax", .lax), ("NONE", .noRestriction), ("bogus", nil), ("", nil),
    ])
    func sameSite(_ value: String, _ expected: Cookie.SameSite?) throws {
        #expect(try Self.cookie("a=b; Secure; SameSite=\(value)").sameSite == expected)
    }

    // MARK: - Max-Age and Expires

    @Test func maxAgeCountsFromNow() throws {
        #expect(try Self.cookie("a=b; Max-Age=60").expiresDate == Self.now.addingTimeInterval(60))
    }

    @Test("Max-Age wins over Expires wherever it stands", arguments: [
        "a=b; Max-Age=60; Expires=Wed, 09 Jun 2021 10:18:14 GMT",
        "a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Max-Age=60",
        "a=b; Max-Age=60; Expires=Fri, 31 Dec 9999 23:59:59 GMT",
    ])
    func maxAgeWins(_ field: String) throws {
        #expect(try Self.cookie(field).expiresDate == Self.now.addingTimeInterval(60))
    }

    @Test("Max-Age of zero or less expires the cookie at once", arguments: ["0", "-1", "-0", "-99999999999999999999"])
    func maxAgeExpires(_ value: String) throws {
        let cookie = try Self.cookie("a=b; Max-Age=\(value)")
        #expect(cookie.isExpired(at: Self.now))
    }

    @Test("Max-Age values that are not numbers are ignored", arguments: ["", "abc", "+5", "5s", "-", "1e3", " 6 0"])
    func maxAgeIgnored(_ value: String) throws {
        #expect(try Self.cookie("a=b; Max-Age=\(value)").isSessionOnly)
        #expect(try Self.cookie("a=b; Max-Age=30; Max-Age=\(value)").expiresDate == Self.now.addingTimeInterval(30))
    }

    @Test func lifetimesAreCappedAt400Days() throws {
        let cap = Self.now.addingTimeInterval(400 * 86_400)
        #expect(try Self.cookie("a=b; Max-Age=999999999999").expiresDate == cap)
        #expect(try Self.cookie("a=b; Max-Age=99999999999999999999999999").expiresDate == cap)
        #expect(try Self.cookie("a=b; Expires=Fri, 31 Dec 9999 23:59:59 GMT").expiresDate == cap)
        #expect(try Self.cookie("a=b; Max-Age=34560000").expiresDate == cap)
    }

    @Test func anExpiresInThePastMakesAnExpiredCookie() throws {
        let cookie = try Self.cookie("a=b; Expires=Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(cookie.isExpired(at: Self.now))
    }

    // MARK: - Domain

    @Test func aDomainLosesItsLeadingDotAndItsCase() throws {
        let cookie = try Self.cookie("a=b; Domain=.Example.COM")
        #expect(cookie.domain == "example.com" && !cookie.isHostOnly)
    }

    @Test func aDomainNamingTheHostMakesADomainCookie() throws {
        let cookie = try Self.cookie("a=b; Domain=www.example.com")
        #expect(cookie.domain == "www.example.com" && !cookie.isHostOnly)
    }

    @Test("an empty Domain leaves the cookie host-only", arguments: ["a=b; Domain=", "a=b; Domain=.", "a=b; Domain"])
    func emptyDomain(_ field: String) throws {
        let cookie = try Self.cookie(field)
        #expect(cookie.domain == "www.example.com" && cookie.isHostOnly)
    }

    @Test("a Domain the host is not within is refused",
          arguments: ["other.com", "ample.com", "wexample.com", "sub.www.example.com", "example.com.evil"])
    func domainMismatch(_ domain: String) {
        #expect(Self.rejection("a=b; Domain=\(domain)") == .domainMismatch(domain))
    }

    @Test func aNonASCIIDomainIsRefused() {
        #expect(Self.rejection("a=b; Domain=exämple.com") == .nonASCIIDomain("exämple.com"))
    }

    @Test("public suffixes are refused as domains", arguments: [
        ("com", "https://www.example.com/"),
        ("co.uk", "https://www.example.co.uk/"),
        ("uk", "https://www.example.co.uk/"),
        ("github.io", "https://x.github.io/"),
    ])
    func publicSuffixDomains(_ domain: String, _ url: String) {
        #expect(Self.rejection("a=b; Domain=\(domain)", url) == .publicSuffix(domain))
    }

    @Test func aRegistrableDomainIsAccepted() throws {
        let cookie = try Self.cookie("a=b; Domain=example.co.uk", "https://www.example.co.uk/")
        #expect(cookie.domain == "example.co.uk" && !cookie.isHostOnly)
        let pages = try Self.cookie("a=b; Domain=x.github.io", "https://x.github.io/")
        #expect(pages.domain == "x.github.io" && !pages.isHostOnly)
    }

    @Test func aPublicSuffixNamingTheHostItselfMakesAHostOnlyCookie() throws {
        let cookie = try Self.cookie("a=b; Domain=github.io", "https://github.io/")
        #expect(cookie.domain == "github.io" && cookie.isHostOnly)
    }

    @Test func ipAddressesOnlyGetHostOnlyCookies() throws {
        let plain = try Self.cookie("a=b", "http://127.0.0.1:8080/x")
        #expect(plain.domain == "127.0.0.1" && plain.isHostOnly && plain.path == "/")
        let named = try Self.cookie("a=b; Domain=127.0.0.1", "http://127.0.0.1/")
        #expect(named.domain == "127.0.0.1" && named.isHostOnly)
        #expect(Self.rejection("a=b; Domain=0.0.1", "http://127.0.0.1/") == .domainMismatch("0.0.1"))
        let v6 = try Self.cookie("a=b", "http://[::1]:8080/")
        #expect(v6.domain == "::1" && v6.isHostOnly)
    }

    // MARK: - Path

    @Test("the default path comes from the request", arguments: [
        ("https://www.example.com", "/"),
        ("https://www.example.com/", "/"),
        ("https://www.example.com/page", "/"),
        ("https://www.example.com/docs/", "/docs"),
        ("https://www.example.com/a/b/c?d=/e/f", "/a/b"),
    ])
    func defaultPath(_ url: String, _ path: String) throws {
        #expect(try Self.cookie("a=b", url).path == path)
    }

    @Test("a Path that is empty or relative means the default path", arguments: ["Path=", "Path=docs", "Path", "Path=x/"])
    func relativePath(_ attribute: String) throws {
        #expect(try Self.cookie("a=b; \(attribute)").path == "/docs")
    }

    @Test func aPathIsKeptAsSent() throws {
        #expect(try Self.cookie("a=b; Path=/A%20b/").path == "/A%20b/")
    }

    // MARK: - Secure and the prefixes

    @Test func aSecureCookieNeedsASecureRequest() throws {
        #expect(Self.rejection("a=b; Secure", "http://www.example.com/") == .secureFromInsecureRequest)
        #expect(try Self.cookie("a=b; Secure", "http://localhost:8080/").isSecure)
        #expect(try Self.cookie("a=b; Secure", "http://127.0.0.1/").isSecure)
        #expect(try Self.cookie("a=b; Secure", "http://[::1]/").isSecure)
        #expect(try Self.cookie("a=b; Secure", "wss://www.example.com/").isSecure)
    }

    @Test("prefixed names that meet their rules", arguments: [
        "__Secure-id=1; Secure",
        "__Secure-id=1; Secure; Domain=example.com; Path=/x",
        "__Host-id=1; Secure; Path=/",
        "__host-id=1; Secure; Path=/",
    ])
    func prefixAccepted(_ field: String) throws {
        _ = try Self.cookie(field)
    }

    @Test("prefixed names that break their rules (in any case)", arguments: [
        "__Secure-id=1",
        "__secure-id=1",
        "__SECURE-id=1; Path=/",
        "__Host-id=1; Secure",  // no Path attribute, though the default path would be "/"
        "__Host-id=1; Secure; Path=/x",
        "__Host-id=1; Secure; Path=/; Domain=example.com",
        "__Host-id=1; Secure; Path=/; Domain=www.example.com",
        "__HOST-id=1; Path=/",
        "__Secure-token; Secure",  // nameless, with a prefixed value
        "=__Host-token; Secure; Path=/",
    ])
    func prefixRefused(_ field: String) {
        #expect(Self.rejection(field, "https://www.example.com/") == .prefixRequirementsNotMet)
    }

    @Test func aURLWithoutAHostSetsNothing() {
        #expect(Self.rejection("a=b", "file:///tmp/x") == .invalidHost(""))
    }

    // MARK: - Hostile input

    /// Random fields built from the characters the grammar cares about: whatever comes out is
    /// refused or is a cookie that keeps the jar's invariants.
    @Test func randomFieldsNeverBreakTheInvariants() {
        var random = SplitMix64(state: 6265)
        let pieces = ["a", "=", ";", " ", "\t", ",", "\"", "/", ".", "-", "0", "9", ":", "\u{0}", "\r\n", "é",
                      "Domain=", "Path=", "Max-Age=", "Expires=", "Secure", "HttpOnly", "SameSite=", "__Host-",
                      "__Secure-", "example.com", "com", "Jan", "1994", "08:49:37", String(repeating: "x", count: 1100)]
        for _ in 0..<3000 {
            let field = (0..<Int.random(in: 1...24, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            guard case .success(let cookie) = Self.parse(field) else { continue }
            #expect(!(cookie.name.isEmpty && cookie.value.isEmpty), "\(field.debugDescription)")
            #expect(cookie.name.utf8.count + cookie.value.utf8.count <= Cookie.maximumNameAndValueBytes)
            #expect(!(cookie.name + cookie.value).utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F || $0 == 59 })
            #expect(Cookie.isValidDomain(cookie.domain), "\(field.debugDescription)")
            #expect(cookie.domain == "www.example.com" || cookie.domain == "example.com")
            #expect(cookie.path.hasPrefix("/") && cookie.path.utf8.count <= Cookie.maximumAttributeValueBytes)
            #expect(cookie.expiresDate.map { $0 <= Self.now.addingTimeInterval(SetCookieParser.maximumLifetime) } ?? true)
        }
    }
}
