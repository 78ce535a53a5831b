import FerryBase
import FoundationEssentials
import Synchronization

/// Which cookies a ``CookieStorage`` accepts (HTTPCookieStorage's policies).
public enum CookieAcceptPolicy: Sendable, Hashable {
    /// Every cookie the cookie rules allow.
    case always
    /// None: responses' cookies and ``CookieStorage/setCookie(_:)`` are ignored; stored cookies
    /// are still sent.
    case never
    /// Only cookies of the main document's site: the cookie's domain must lie within the
    /// registrable domain of the main document's host (`example.com` for `www.example.com`;
    /// the host itself for an IP address). With no main document URL, every cookie is
    /// accepted, as curl does.
    case onlyFromMainDocumentDomain
}

/// A thread-safe cookie jar with URLSession's HTTPCookieStorage shape, following RFC 6265bis:
/// Set-Cookie parsing and storage (§5.6, §5.7), the Cookie field (§5.8.3), public suffixes
/// through Debian's libpsl, and curl's Netscape cookie files
/// (``loadNetscapeCookieFile(at:junkSessionCookies:)``).
///
/// A session calls two hooks on every exchange:
/// ``cookieHeaderValue(for:)`` before sending, and
/// ``storeCookies(fromSetCookieFields:for:mainDocumentURL:)`` when a response has Set-Cookie
/// fields. An empty jar costs one lock and a count check.
///
/// Decisions beyond the RFC's text:
/// - **Secure requests** are https and wss, and — as curl — plain http to `localhost`,
///   `127.0.0.1` and `::1`, where nothing can be snooped: Secure cookies are accepted from and
///   sent to local development servers.
/// - **SameSite** is kept, not enforced (Ferry is not a browser; neither is curl).
/// - **Expires and Max-Age** are capped at 400 days (RFC 6265bis §5.6.1).
/// - **Limits**: ``maximumCookiesPerDomain`` per registrable domain and ``maximumCookieCount``
///   in all; past them the jar evicts expired cookies first, then the least recently used
///   (non-secure before secure within a domain). One response's first
///   ``maximumSetCookieFieldsPerResponse`` Set-Cookie fields are read, and a Cookie field
///   stops before ``maximumCookieFieldBytes`` (curl's figures).
public final class CookieStorage: Sendable {
    /// The process's shared jar.
    public static let shared = CookieStorage()

    /// The most cookies kept per registrable domain (`example.co.uk` for any name below it;
    /// an IP address or a public suffix counts alone). RFC 6265bis §6.1 asks for at least 50;
    /// this is Chromium's figure.
    public static let maximumCookiesPerDomain = 180
    /// The most cookies kept in all (RFC 6265bis §6.1's figure).
    public static let maximumCookieCount = 3000
    /// How many Set-Cookie fields of one response are read; the rest are ignored (curl's
    /// figure), so one response cannot churn the whole jar.
    public static let maximumSetCookieFieldsPerResponse = 50
    /// The longest Cookie field value sent; cookies that would make it longer are left out
    /// (curl's figure: servers commonly refuse a request head line past 8 KiB).
    public static let maximumCookieFieldBytes = 8190

    private struct State: Sendable {
        var policy: CookieAcceptPolicy = .always
        var jar = CookieStorage.emptyJar()
    }

    private let state = Locked(State())
    /// Set once a cookie was stored (cleared by ``removeAll()``): until then a request reads
    /// this flag and nothing else, not even the lock every session's loops share.
    private let mayHoldCookies = Atomic<Bool>(false)
    private let now: @Sendable () -> Date
    private let publicSuffixList: @Sendable () -> PublicSuffixList
    /// The list Domain attributes are checked against, loaded when a cookie first needs it
    /// (a process that handles none never reads it).
    var publicSuffixes: PublicSuffixList { publicSuffixList() }

    /// An empty jar that accepts every cookie, on the system clock.
    public convenience init() {
        self.init(now: { Date() })
    }

    /// An empty jar on the clock `now` (tests), checking domains against `publicSuffixes`.
    package init(now: @escaping @Sendable () -> Date,
                 publicSuffixes: @autoclosure @escaping @Sendable () -> PublicSuffixList = .system) {
        self.now = now
        self.publicSuffixList = publicSuffixes
    }

    private static func emptyJar() -> CookieJar {
        CookieJar(maximumPerBucket: maximumCookiesPerDomain, maximumCount: maximumCookieCount)
    }

    /// Which cookies the jar accepts. Changing it keeps the cookies already stored.
    public var cookieAcceptPolicy: CookieAcceptPolicy {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }

    // MARK: - The session's hooks

    /// Stores the cookies of a response's Set-Cookie field values (RFC 6265bis §5.6, §5.7),
    /// following ``cookieAcceptPolicy``. Fields that set no cookie are ignored, as the RFC says.
    ///
    /// - Parameters:
    ///   - values: The Set-Cookie field values, in the order received.
    ///   - url: The URL of the request the response answers.
    ///   - mainDocumentURL: The main document's URL, for
    ///     ``CookieAcceptPolicy/onlyFromMainDocumentDomain``; nil accepts.
    public func storeCookies(fromSetCookieFields values: [String], for url: URL, mainDocumentURL: URL?) {
        guard !values.isEmpty, let request = CookieRequest(url: url) else { return }
        let policy = cookieAcceptPolicy
        guard policy != .never else { return }
        let site = policy == .onlyFromMainDocumentDomain ? mainDocumentSite(mainDocumentURL) : nil
        let now = now()
        var accepted: [(cookie: Cookie, bucket: String)] = []
        for value in values.prefix(Self.maximumSetCookieFieldsPerResponse) {
            guard case .success(let cookie) = SetCookieParser.parse(value, request: request, now: now,
                                                                   publicSuffixes: publicSuffixes) else { continue }
            let bucket = bucketKey(cookie.domain)
            if let site, site != bucket { continue }
            accepted.append((cookie, bucket))
        }
        guard !accepted.isEmpty else { return }
        state.withLock { state in
            for (cookie, bucket) in accepted {
                _ = state.jar.insert(cookie, bucket: bucket, fromSecureRequest: request.isSecure, now: now)
            }
            mayHoldCookies.store(true, ordering: .releasing)
        }
    }

    /// The Cookie field value for a request to `url` (RFC 6265bis §5.8.3): `a=b; c=d`, longer
    /// paths first, then older cookies; nil when no cookie applies. The cookies sent count as
    /// accessed now (eviction spares them longest).
    public func cookieHeaderValue(for url: URL) -> String? {
        guard mayHoldCookies.load(ordering: .acquiring) else { return nil }
        let cookies = state.withLock { state -> [Cookie] in
            // The common case, a jar with nothing in it, stops here.
            guard !state.jar.isEmpty, let request = CookieRequest(url: url) else { return [] }
            return state.jar.cookies(for: request, bucket: bucketKey(request.host), now: now(), touch: true)
        }
        guard !cookies.isEmpty else { return nil }
        var value = ""
        for cookie in cookies {
            let entry = cookie.cookieFieldEntry
            let separator = value.isEmpty ? 0 : 2
            if value.utf8.count + separator + entry.utf8.count > Self.maximumCookieFieldBytes { break }
            if separator > 0 { value += "; " }
            value += entry
        }
        return value.isEmpty ? nil : value
    }

    // MARK: - HTTPCookieStorage's API

    /// Every stored cookie that has not expired, in order of arrival.
    public var cookies: [Cookie] {
        let now = now()
        return state.withLock { state in
            state.jar.removeExpired(now: now)
            return state.jar.allCookies(now: now)
        }
    }

    /// The cookies a request to `url` would send, in Cookie field order. Unlike
    /// ``cookieHeaderValue(for:)`` it leaves their last access dates alone.
    public func cookies(for url: URL) -> [Cookie] {
        guard let request = CookieRequest(url: url) else { return [] }
        let bucket = bucketKey(request.host)
        let now = now()
        return state.withLock { $0.jar.cookies(for: request, bucket: bucket, now: now, touch: false) }
    }

    /// Stores `cookie`, replacing the stored one with the same ``Cookie/ID`` (keeping its
    /// creation date); an expired cookie deletes it. Ignored when the policy is
    /// ``CookieAcceptPolicy/never``, and for a domain cookie whose domain is a public suffix.
    public func setCookie(_ cookie: Cookie) {
        guard cookieAcceptPolicy != .never else { return }
        insert([cookie], fromSecureRequest: true)
    }

    /// Stores cookies received for `url`, following ``cookieAcceptPolicy`` as HTTPCookieStorage
    /// does: only those `url`'s host may set (its own host, or a domain it lies within), and no
    /// Secure cookie for a request that is not secure. A nil `url` checks nothing of the kind.
    ///
    /// - Parameters:
    ///   - cookies: The cookies.
    ///   - url: The URL they came from, if known.
    ///   - mainDocumentURL: The main document's URL, for
    ///     ``CookieAcceptPolicy/onlyFromMainDocumentDomain``; nil accepts.
    public func setCookies(_ cookies: [Cookie], for url: URL?, mainDocumentURL: URL?) {
        let policy = cookieAcceptPolicy
        guard policy != .never else { return }
        let site = policy == .onlyFromMainDocumentDomain ? mainDocumentSite(mainDocumentURL) : nil
        var accepted = cookies
        var fromSecureRequest = true
        if let url {
            guard let request = CookieRequest(url: url) else { return }
            fromSecureRequest = request.isSecure
            accepted.removeAll { cookie in
                let fromHost = cookie.isHostOnly
                    ? cookie.domain == request.host
                    : CookieRequest.domainMatches(request.host, cookie.domain, hostIsIPAddress: request.isIPAddress)
                return !fromHost || (cookie.isSecure && !request.isSecure)
            }
        }
        if let site { accepted.removeAll { bucketKey($0.domain) != site } }
        insert(accepted, fromSecureRequest: fromSecureRequest)
    }

    /// Removes the stored cookie with `cookie`'s ``Cookie/ID``.
    public func deleteCookie(_ cookie: Cookie) {
        let bucket = bucketKey(cookie.domain)
        state.withLock { _ = $0.jar.remove(cookie.id, bucket: bucket) }
    }

    /// Removes the cookies first stored at or after `date`.
    public func removeCookies(since date: Date) {
        state.withLock { $0.jar.removeAll { $0.creationDate >= date } }
    }

    /// Removes every cookie.
    public func removeAll() {
        state.withLock {
            $0.jar = Self.emptyJar()
            mayHoldCookies.store(false, ordering: .releasing)
        }
    }

    // MARK: - Shared with the cookie file code

    /// Stores cookies that come with no request to check them against (the caller's, a cookie
    /// file's): a domain cookie on a public suffix is dropped, as a server could not set it.
    func insert(_ cookies: [Cookie], fromSecureRequest: Bool) {
        let accepted = cookies.compactMap { cookie -> (Cookie, String)? in
            if !cookie.isHostOnly && publicSuffixes.isPublicSuffix(cookie.domain) { return nil }
            return (cookie, bucketKey(cookie.domain))
        }
        guard !accepted.isEmpty else { return }
        let now = now()
        state.withLock { state in
            for (cookie, bucket) in accepted {
                _ = state.jar.insert(cookie, bucket: bucket, fromSecureRequest: fromSecureRequest, now: now)
            }
            mayHoldCookies.store(true, ordering: .releasing)
        }
    }

    /// The jar's clock.
    var currentDate: Date { now() }

    /// The bucket a domain's cookies live in: its registrable domain, or the domain itself
    /// when it has none (an IP address, a public suffix). A request's host finds every cookie
    /// that can match it there, since a Domain attribute never names a public suffix.
    private func bucketKey(_ domain: String) -> String {
        publicSuffixes.registrableDomain(of: domain) ?? domain
    }

    /// The bucket of the main document's site; "" (matching no bucket) for a URL without a
    /// host; nil when there is no main document (every cookie accepted).
    private func mainDocumentSite(_ url: URL?) -> String? {
        guard let url else { return nil }
        return CookieRequest(url: url).map { bucketKey($0.host) } ?? ""
    }
}
