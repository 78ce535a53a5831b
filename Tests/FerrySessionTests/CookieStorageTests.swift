// CookieStorage: the jar's rules on a fixed clock — what a response stores, what a request
// sends and in which order, replacement, expiry, the rule that leaves Secure cookies alone,
// the accept policies, and eviction at the limits.
import FerryBase
import Foundation
import Synchronization
import Testing

@testable import FerrySession

/// A clock the tests move by hand.
final class CookieTestClock: Sendable {
    private let time = Locked(Date(timeIntervalSince1970: 1_700_000_000))

    var now: Date { time.withLock { $0 } }

    func advance(_ seconds: TimeInterval) {
        time.withLock { $0 += seconds }
    }
}

func cookieURL(_ string: String) -> URL {
    URL(string: string)!
}

@Suite("Cookie storage")
struct CookieStorageTests {
    let clock = CookieTestClock()
    let storage: CookieStorage

    init() {
        let clock = clock
        storage = CookieStorage(now: { clock.now })
    }

    func store(_ fields: String..., from url: String = "https://www.example.com/", main: String? = nil) {
        storage.storeCookies(fromSetCookieFields: fields, for: cookieURL(url), mainDocumentURL: main.map(cookieURL))
    }

    func header(_ url: String) -> String? {
        storage.cookieHeaderValue(for: cookieURL(url))
    }

    // MARK: - Storing and sending

    @Test func anEmptyJarSendsNothing() {
        #expect(header("https://www.example.com/") == nil)
        #expect(storage.cookies.isEmpty)
        #expect(storage.cookies(for: cookieURL("https://www.example.com/")).isEmpty)
    }

    @Test func theRFCExample() {
        store("SID=31d4d96e407aad42; Path=/; Secure; HttpOnly", "lang=en-US; Path=/; Domain=example.com")
        #expect(header("https://www.example.com/") == "SID=31d4d96e407aad42; lang=en-US")
        #expect(header("http://www.example.com/") == "lang=en-US", "the Secure cookie stays off plain http")
        #expect(header("https://docs.example.com/") == "lang=en-US", "the host-only cookie stays with its host")
        #expect(header("https://example.com/x") == "lang=en-US")
        #expect(header("https://example.org/") == nil)
    }

    @Test func longerPathsFirstThenOlderCookies() {
        store("a=1; Path=/")
        clock.advance(1)
        store("b=2; Path=/docs")
        clock.advance(1)
        store("c=3; Path=/")
        store("d=4; Path=/docs/deep")
        #expect(header("https://www.example.com/docs/deep/page") == "d=4; b=2; a=1; c=3")
        #expect(header("https://www.example.com/docs") == "b=2; a=1; c=3")
        #expect(header("https://www.example.com/docsx") == "a=1; c=3")
        #expect(storage.cookies(for: cookieURL("https://www.example.com/docs/x")).map(\.name) == ["b", "a", "c"])
    }

    @Test func cookiesOfOneInstantKeepTheirOrderOfArrival() {
        store("z=1", "y=2", "x=3")
        #expect(header("https://www.example.com/") == "z=1; y=2; x=3")
    }

    @Test func aNamelessCookieIsSentAsItsValue() {
        store("token", "a=b")
        #expect(header("https://www.example.com/") == "token; a=b")
    }

    @Test func refusedFieldsAreSkippedAndTheRestStored() {
        store("a=1; Domain=other.com", "b=2; Domain=com", "c=3\u{1}", "d=4")
        #expect(storage.cookies.map(\.name) == ["d"])
    }

    @Test func onlyTheFirst50FieldsOfAResponseAreRead() {
        let fields = (0..<60).map { "c\($0)=\($0)" }
        storage.storeCookies(fromSetCookieFields: fields, for: cookieURL("https://www.example.com/"), mainDocumentURL: nil)
        #expect(storage.cookies.count == CookieStorage.maximumSetCookieFieldsPerResponse)
        #expect(storage.cookies.last?.name == "c49")
    }

    @Test func theCookieFieldStopsBeforeItsLimit() throws {
        let big = String(repeating: "v", count: 4000)
        store("a=\(big)", "b=\(big)", "c=\(big)", "d=small")
        let value = try #require(header("https://www.example.com/"))
        #expect(value == "a=\(big); b=\(big)")
        #expect(value.utf8.count <= CookieStorage.maximumCookieFieldBytes)
    }

    @Test func ipHostsKeepTheirCookies() {
        store("a=1", from: "http://127.0.0.1:8080/")
        #expect(header("http://127.0.0.1:9090/x") == "a=1", "cookies do not isolate ports")
        #expect(header("http://127.0.0.2/") == nil)
        store("v6=1", from: "http://[::1]:8080/")
        #expect(header("http://[::1]/") == "v6=1")
    }

    @Test func localHTTPIsASecureContext() {
        store("s=1; Secure", from: "http://localhost:8080/")
        #expect(header("http://localhost:8080/") == "s=1")
        store("t=1; Secure", from: "http://www.example.com/")
        #expect(storage.cookies.map(\.name) == ["s"])
    }

    // MARK: - Replacement and expiry

    @Test func aReplacementKeepsTheCreationDate() throws {
        store("a=1")
        let created = clock.now
        clock.advance(10)
        store("b=2")
        clock.advance(10)
        store("a=3; HttpOnly")
        let cookies = storage.cookies(for: cookieURL("https://www.example.com/"))
        #expect(cookies.map(\.value) == ["3", "2"], "the older cookie still comes first")
        let replaced = try #require(cookies.first)
        #expect(replaced.creationDate == created)
        #expect(replaced.lastAccessDate == clock.now)
        #expect(replaced.isHTTPOnly)
        #expect(storage.cookies.count == 2)
    }

    @Test func aHostOnlyCookieAndADomainCookieOfOneNameAreTwoCookies() {
        store("a=1", "a=2; Domain=www.example.com")
        #expect(storage.cookies.count == 2)
        #expect(header("https://www.example.com/") == "a=1; a=2")
        #expect(header("https://sub.www.example.com/") == "a=2")
    }

    @Test func cookiesExpireOnTheClock() {
        store("a=1; Max-Age=60", "b=2")
        clock.advance(59)
        #expect(header("https://www.example.com/") == "a=1; b=2")
        clock.advance(1)
        #expect(header("https://www.example.com/") == "b=2")
        #expect(storage.cookies.map(\.name) == ["b"])
    }

    @Test("a server deletes a cookie with a date in the past", arguments: [
        "a=gone; Max-Age=0", "a=gone; Max-Age=-1", "a=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    ])
    func deletion(_ field: String) {
        store("a=1", "b=2")
        store(field)
        #expect(header("https://www.example.com/") == "b=2")
        #expect(storage.cookies.count == 1)
    }

    @Test func onlyTheSameIDIsDeleted() {
        store("a=1; Path=/x")
        store("a=gone; Max-Age=0; Path=/")
        #expect(storage.cookies.map(\.path) == ["/x"])
    }

    // MARK: - Leave secure cookies alone (RFC 6265bis §5.7)

    @Test func plainHTTPCannotShadowASecureCookie() {
        store("s=secret; Secure; Path=/")
        store("s=evil", from: "http://www.example.com/")
        store("s=evil; Path=/deeper", from: "http://www.example.com/")
        store("s=evil; Domain=example.com", from: "http://www.example.com/")
        store("s=gone; Max-Age=0", from: "http://www.example.com/")
        #expect(header("https://www.example.com/deeper") == "s=secret")
        store("other=ok", from: "http://www.example.com/")
        #expect(storage.cookies.map(\.name) == ["s", "other"])
    }

    @Test func httpsMayReplaceASecureCookieWithAPlainOne() {
        store("s=secret; Secure")
        store("s=plain")
        #expect(header("http://www.example.com/") == "s=plain")
        #expect(storage.cookies.count == 1)
    }

    // MARK: - Accept policies

    @Test func neverAcceptsNothingButKeepsSending() throws {
        store("a=1")
        storage.cookieAcceptPolicy = .never
        #expect(storage.cookieAcceptPolicy == .never)
        store("b=2")
        storage.setCookie(try Cookie(name: "c", value: "3", domain: "www.example.com"))
        storage.setCookies([try Cookie(name: "d", value: "4", domain: "www.example.com")],
                           for: cookieURL("https://www.example.com/"), mainDocumentURL: nil)
        #expect(header("https://www.example.com/") == "a=1")
    }

    @Test func onlyFromMainDocumentDomainAcceptsTheMainDocumentsSite() {
        storage.cookieAcceptPolicy = .onlyFromMainDocumentDomain
        store("first=1; Domain=example.com", from: "https://www.example.com/", main: "https://www.example.com/")
        store("api=1", from: "https://api.example.com/", main: "https://www.example.com/")
        store("tracker=1", from: "https://tracker.net/", main: "https://www.example.com/")
        store("neighbour=1", from: "https://other.co.uk/", main: "https://www.example.co.uk/")
        store("direct=1", from: "https://direct.org/", main: nil)
        store("hostless=1", from: "https://www.example.com/", main: "file:///index.html")
        #expect(storage.cookies.map(\.name) == ["first", "api", "direct"])
    }

    // MARK: - The caller's cookies

    @Test func setCookieStoresAndReplaces() throws {
        let date = Date(timeIntervalSince1970: 1_600_000_000)
        storage.setCookie(try Cookie(name: "a", value: "1", domain: ".example.com", creationDate: date))
        storage.setCookie(try Cookie(name: "a", value: "2", domain: ".example.com"))
        let cookies = storage.cookies
        #expect(cookies.map(\.value) == ["2"])
        #expect(cookies.first?.creationDate == date)
        #expect(header("https://deep.www.example.com/") == "a=2")
    }

    @Test func aCallersDomainCookieOnAPublicSuffixIsIgnored() throws {
        storage.setCookie(try Cookie(name: "super", value: "1", domain: ".co.uk"))
        storage.setCookie(try Cookie(name: "host", value: "1", domain: "co.uk"))
        #expect(storage.cookies.map(\.name) == ["host"])
        #expect(header("https://www.example.co.uk/") == nil)
    }

    @Test func setCookiesForAURLKeepsWhatThatHostMaySet() throws {
        let cookies = [
            try Cookie(name: "own", value: "1", domain: "www.example.com"),
            try Cookie(name: "parent", value: "1", domain: ".example.com"),
            try Cookie(name: "foreign", value: "1", domain: "other.com"),
            try Cookie(name: "sibling", value: "1", domain: "api.example.com"),
            try Cookie(name: "secure", value: "1", domain: "www.example.com", isSecure: true),
        ]
        storage.setCookies(cookies, for: cookieURL("http://www.example.com/"), mainDocumentURL: nil)
        #expect(storage.cookies.map(\.name) == ["own", "parent"])
        storage.removeAll()
        storage.setCookies(cookies, for: nil, mainDocumentURL: nil)
        #expect(storage.cookies.count == 5)
    }

    @Test func deleteRemoveSinceAndRemoveAll() throws {
        store("a=1", "b=2; Path=/x")
        clock.advance(10)
        let cutoff = clock.now
        store("c=3")
        let b = try #require(storage.cookies.first { $0.name == "b" })
        storage.deleteCookie(b)
        #expect(storage.cookies.map(\.name) == ["a", "c"])
        storage.removeCookies(since: cutoff)
        #expect(storage.cookies.map(\.name) == ["a"])
        storage.removeAll()
        #expect(storage.cookies.isEmpty && header("https://www.example.com/") == nil)
    }

    @Test func sendingCountsAsAccessButLookingDoesNot() throws {
        store("a=1")
        clock.advance(5)
        _ = storage.cookies(for: cookieURL("https://www.example.com/"))
        #expect(storage.cookies.first?.lastAccessDate == clock.now.addingTimeInterval(-5))
        _ = header("https://www.example.com/")
        #expect(storage.cookies.first?.lastAccessDate == clock.now)
    }

    // MARK: - Limits and eviction

    @Test func aDomainKeepsItsNewestCookies() {
        let limit = CookieStorage.maximumCookiesPerDomain
        for index in 0...limit {
            store("c\(index)=1", from: "https://host\(index % 3).example.com/")
            clock.advance(1)
        }
        let names = Set(storage.cookies.map(\.name))
        #expect(names.count == limit)
        #expect(!names.contains("c0"), "the least recently used cookie of example.com goes")
        #expect(names.contains("c\(limit)"))
    }

    @Test func aRecentlySentCookieOutlivesAnOlderUnusedOne() {
        let limit = CookieStorage.maximumCookiesPerDomain
        for index in 0..<limit {
            store("c\(index)=1")
            clock.advance(1)
        }
        _ = header("https://www.example.com/")  // every cookie accessed now…
        clock.advance(1)
        store("c0=again")  // …c0 again later,
        clock.advance(1)
        store("new=1")  // so the overflow takes c1, the first in arrival order of the rest.
        let names = Set(storage.cookies.map(\.name))
        #expect(names.count == limit && names.contains("c0") && !names.contains("c1") && names.contains("new"))
    }

    @Test func nonSecureCookiesGoBeforeSecureOnes() {
        let limit = CookieStorage.maximumCookiesPerDomain
        store("keep=1; Secure")
        for index in 1...limit {
            clock.advance(1)
            store("c\(index)=1")
        }
        let names = Set(storage.cookies.map(\.name))
        #expect(names.contains("keep") && !names.contains("c1") && names.count == limit)
    }

    @Test func expiredCookiesGoFirst() {
        let limit = CookieStorage.maximumCookiesPerDomain
        store("old=1")
        clock.advance(1)
        store("shortLived=1; Max-Age=5")
        for index in 2..<limit {
            store("c\(index)=1")
        }
        clock.advance(10)
        store("new=1")
        let names = Set(storage.cookies.map(\.name))
        #expect(names.contains("old") && !names.contains("shortLived") && names.contains("new"))
        #expect(names.count == limit)
    }

    @Test func theJarKeepsAtMost3000Cookies() throws {
        let limit = CookieStorage.maximumCookieCount
        #expect(limit == 3000)
        for index in 0...limit {
            storage.setCookie(try Cookie(name: "c", value: "\(index)", domain: "site\(index).example"))
            clock.advance(1)
        }
        let cookies = storage.cookies
        #expect(cookies.count == limit)
        #expect(cookies.first?.domain == "site1.example")
        #expect(storage.cookieHeaderValue(for: cookieURL("https://site0.example/")) == nil)
        #expect(storage.cookieHeaderValue(for: cookieURL("https://site3000.example/")) == "c=3000")
    }

    // MARK: - Threads

    @Test func concurrentUseKeepsTheJarWhole() async {
        let storage = storage
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let url = cookieURL("https://w\(worker).example.com/")
                    for index in 0..<100 {
                        storage.storeCookies(fromSetCookieFields: ["c\(index % 10)=\(index)"], for: url, mainDocumentURL: nil)
                        _ = storage.cookieHeaderValue(for: url)
                    }
                }
            }
        }
        #expect(storage.cookies.count == 80)
        #expect(storage.cookieHeaderValue(for: cookieURL("https://w3.example.com/"))?.contains("c9=99") == true)
    }
}
