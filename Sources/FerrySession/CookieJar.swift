import FoundationEssentials

/// The cookie store of RFC 6265bis §5.7 and §5.8.3 as a value: insertion with replacement,
/// the "leave secure cookies alone" rule, lookup for a request, expiry and eviction. Pure: the
/// clock comes in as `now`, and each cookie's bucket key (see ``CookieStorage``) is computed by
/// the caller from the Public Suffix List. ``CookieStorage`` keeps one behind its lock.
struct CookieJar: Sendable {
    /// A stored cookie and its order of first arrival, which breaks ties between equal
    /// creation dates (a clock's resolution, or a file's cookies loaded at one instant).
    struct Entry: Sendable {
        var cookie: Cookie
        var sequence: UInt64
    }

    /// What ``insert(_:bucket:fromSecureRequest:now:)`` did.
    enum InsertOutcome: Sendable, Equatable {
        /// A new cookie was stored.
        case inserted
        /// It replaced the stored cookie with the same ``Cookie/ID``, keeping its creation date.
        case replaced
        /// It had expired already: the stored cookie with its ID, if any, is gone, and it was
        /// not stored (how servers delete cookies).
        case expired
        /// A non-secure cookie from a non-secure request that would shadow a Secure cookie
        /// (RFC 6265bis §5.7): ignored.
        case shadowsSecureCookie
    }

    /// The most cookies one bucket (a registrable domain) keeps.
    let maximumPerBucket: Int
    /// The most cookies the jar keeps.
    let maximumCount: Int

    /// Cookies by bucket key: the registrable domain of their domain, or the domain itself.
    private(set) var buckets: [String: [Entry]] = [:]
    /// How many cookies the buckets hold.
    private(set) var count = 0
    private var nextSequence: UInt64 = 0

    init(maximumPerBucket: Int, maximumCount: Int) {
        self.maximumPerBucket = maximumPerBucket
        self.maximumCount = maximumCount
    }

    var isEmpty: Bool { count == 0 }

    // MARK: - Storing

    /// Stores `cookie` in `bucket` (RFC 6265bis §5.7 from "leave secure cookies alone" on),
    /// then evicts what exceeds the limits.
    mutating func insert(_ cookie: Cookie, bucket: String, fromSecureRequest: Bool, now: Date) -> InsertOutcome {
        var cookie = cookie
        cookie.lastAccessDate = now
        var entries = buckets[bucket] ?? []
        if !cookie.isSecure && !fromSecureRequest && entries.contains(where: { Self.shadows(cookie, $0.cookie) }) {
            return .shadowsSecureCookie
        }
        let id = cookie.id
        let existing = entries.firstIndex { $0.cookie.id == id }
        if cookie.isExpired(at: now) {
            if let existing {
                entries.remove(at: existing)
                count -= 1
                store(entries, in: bucket)
            }
            return .expired
        }
        if let existing {
            var replacement = cookie
            replacement.creationDate = entries[existing].cookie.creationDate
            entries[existing].cookie = replacement
            buckets[bucket] = entries
            return .replaced
        }
        entries.append(Entry(cookie: cookie, sequence: nextSequence))
        nextSequence += 1
        count += 1
        if entries.count > maximumPerBucket { evictFromBucket(&entries, now: now) }
        store(entries, in: bucket)
        if count > maximumCount { evictFromJar(now: now) }
        return .inserted
    }

    /// Whether a new non-secure `cookie` would shadow `stored`, a Secure one (RFC 6265bis §5.7):
    /// same name, either domain within the other, and the new path within the stored one.
    private static func shadows(_ cookie: Cookie, _ stored: Cookie) -> Bool {
        stored.isSecure && stored.name == cookie.name
            && (CookieRequest.domainMatches(cookie.domain, stored.domain, hostIsIPAddress: false)
                || CookieRequest.domainMatches(stored.domain, cookie.domain, hostIsIPAddress: false))
            && CookieRequest.pathMatches(cookie.path, stored.path)
    }

    private mutating func store(_ entries: [Entry], in bucket: String) {
        buckets[bucket] = entries.isEmpty ? nil : entries
    }

    // MARK: - Eviction (RFC 6265bis §5.7: expired first, then by least recent access)

    /// Brings an over-full bucket back to ``maximumPerBucket``: expired cookies first, then
    /// non-secure ones, then any, each least recently accessed first.
    private mutating func evictFromBucket(_ entries: inout [Entry], now: Date) {
        let before = entries.count
        entries.removeAll { $0.cookie.isExpired(at: now) }
        let excess = entries.count - maximumPerBucket
        if excess > 0 {
            let victims = entries.indices
                .sorted { Self.evictsFirst(entries[$0], entries[$1], preferringNonSecure: true) }
                .prefix(excess)
            for index in victims.sorted(by: >) { entries.remove(at: index) }
        }
        count -= before - entries.count
    }

    /// Brings the jar back to ``maximumCount``: expired cookies first, then the least recently
    /// accessed ones.
    private mutating func evictFromJar(now: Date) {
        removeExpired(now: now)
        while count > maximumCount {
            var oldest: (bucket: String, index: Int, entry: Entry)?
            for (bucket, entries) in buckets {
                for (index, entry) in entries.enumerated()
                where oldest.map({ Self.evictsFirst(entry, $0.entry, preferringNonSecure: false) }) ?? true {
                    oldest = (bucket, index, entry)
                }
            }
            guard let oldest, var entries = buckets[oldest.bucket] else { return }
            entries.remove(at: oldest.index)
            count -= 1
            store(entries, in: oldest.bucket)
        }
    }

    /// The eviction order: (non-secure before secure, when asked), earlier last access, then
    /// earlier arrival.
    private static func evictsFirst(_ a: Entry, _ b: Entry, preferringNonSecure: Bool) -> Bool {
        if preferringNonSecure && a.cookie.isSecure != b.cookie.isSecure { return !a.cookie.isSecure }
        if a.cookie.lastAccessDate != b.cookie.lastAccessDate { return a.cookie.lastAccessDate < b.cookie.lastAccessDate }
        return a.sequence < b.sequence
    }

    /// Drops every expired cookie.
    mutating func removeExpired(now: Date) {
        removeAll { $0.isExpired(at: now) }
    }

    // MARK: - Reading

    /// The cookies of `bucket` for `request`, in Cookie field order (RFC 6265bis §5.8.3):
    /// longer paths first, then earlier creation. Expired ones are dropped from the jar on the
    /// way; with `touch`, the returned ones get `now` as their last access.
    mutating func cookies(for request: CookieRequest, bucket: String, now: Date, touch: Bool) -> [Cookie] {
        guard var entries = buckets[bucket] else { return [] }
        let before = entries.count
        entries.removeAll { $0.cookie.isExpired(at: now) }
        count -= before - entries.count
        var matching: [Int] = []
        for index in entries.indices where request.accepts(entries[index].cookie) {
            if touch { entries[index].cookie.lastAccessDate = now }
            matching.append(index)
        }
        store(entries, in: bucket)
        matching.sort { Self.sendsFirst(entries[$0], entries[$1]) }
        return matching.map { entries[$0].cookie }
    }

    /// Every unexpired cookie, in order of arrival.
    func allCookies(now: Date) -> [Cookie] {
        buckets.values.joined()
            .filter { !$0.cookie.isExpired(at: now) }
            .sorted { $0.sequence < $1.sequence }
            .map(\.cookie)
    }

    private static func sendsFirst(_ a: Entry, _ b: Entry) -> Bool {
        let aPath = a.cookie.path.utf8.count, bPath = b.cookie.path.utf8.count
        if aPath != bPath { return aPath > bPath }
        if a.cookie.creationDate != b.cookie.creationDate { return a.cookie.creationDate < b.cookie.creationDate }
        return a.sequence < b.sequence
    }

    // MARK: - Removing

    /// Removes the cookie with `id` from `bucket`; whether there was one.
    @discardableResult
    mutating func remove(_ id: Cookie.ID, bucket: String) -> Bool {
        guard var entries = buckets[bucket], let index = entries.firstIndex(where: { $0.cookie.id == id }) else {
            return false
        }
        entries.remove(at: index)
        count -= 1
        store(entries, in: bucket)
        return true
    }

    /// Removes every cookie `shouldRemove` picks.
    mutating func removeAll(where shouldRemove: (Cookie) -> Bool) {
        for (bucket, entries) in buckets {
            let kept = entries.filter { !shouldRemove($0.cookie) }
            guard kept.count != entries.count else { continue }
            count -= entries.count - kept.count
            store(kept, in: bucket)
        }
    }
}
