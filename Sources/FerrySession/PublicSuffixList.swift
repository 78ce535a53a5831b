import CPSL

/// The Public Suffix List, as Debian's libpsl holds it: the rule that keeps a server from setting
/// a cookie for a whole registry such as `com`, `co.uk` or `github.io` (RFC 6265bis §5.7, the
/// "public suffixes" step). curl asks the same library the same questions.
///
/// One list is loaded per process (``system``): libpsl's `psl_latest`, which takes the newer of
/// Debian's `publicsuffix` data file and the copy built into libpsl, so the jar follows Debian's
/// updates without a rebuild; `psl_builtin` when that fails. Should neither be there, the
/// conservative rule of a list without data applies (see ``isPublicSuffix(_:)``).
///
/// Every question takes lower-case input, in IDNA ASCII (A-label) or UTF-8 form: the jar passes
/// canonical hosts and Domain attributes, which are both.
package final class PublicSuffixList: @unchecked Sendable {
    // @unchecked: `context` is set once in `init` and libpsl only reads it afterwards (its lookups
    // keep no state in the context), so concurrent questions from any thread are safe.

    /// The process's list, loaded on first use.
    package static let system = PublicSuffixList()

    private let context: OpaquePointer?
    private let ownsContext: Bool

    /// Loads the newest list this machine has (see the type's summary).
    package convenience init() {
        if let latest = psl_latest(nil) {
            self.init(context: latest, ownsContext: true)
        } else {
            // The built-in list is libpsl's own static data: never freed.
            self.init(context: psl_builtin(), ownsContext: false)
        }
    }

    /// A list without data: only the fallback rules apply (for tests of that case).
    package static func withoutData() -> PublicSuffixList {
        PublicSuffixList(context: nil, ownsContext: false)
    }

    private init(context: OpaquePointer?, ownsContext: Bool) {
        self.context = context
        self.ownsContext = ownsContext
    }

    deinit {
        if ownsContext, let context { psl_free(context) }
    }

    /// Whether libpsl's data was found (false means the fallback rules answer).
    package var hasData: Bool { context != nil }

    /// Whether `domain` is a public suffix, private registries (`github.io`) included, with the
    /// list's implicit `*` rule (so an unlisted single label such as `localhost` is one).
    ///
    /// Without data, every name of one label is a public suffix and no other name is.
    package func isPublicSuffix(_ domain: String) -> Bool {
        guard Self.isLookupSafe(domain) else { return true }
        guard let context else { return !domain.utf8.contains(UInt8(ascii: ".")) }
        return psl_is_public_suffix(context, domain) != 0
    }

    /// Whether a cookie from `host` may name `cookieDomain` in its Domain attribute: the same
    /// name, or a parent domain of `host` that is longer than `host`'s public suffix
    /// (`psl_is_cookie_domain_acceptable`). An IP address only accepts itself.
    ///
    /// Without data, a parent domain of more than one label is acceptable.
    package func isCookieDomainAcceptable(_ cookieDomain: String, forHost host: String) -> Bool {
        guard Self.isLookupSafe(cookieDomain), Self.isLookupSafe(host) else { return false }
        guard let context else {
            if cookieDomain == host { return true }
            return !CookieRequest.isIPAddress(host)
                && CookieRequest.domainMatches(host, cookieDomain, hostIsIPAddress: false)
                && cookieDomain.utf8.contains(UInt8(ascii: "."))
        }
        return psl_is_cookie_domain_acceptable(context, host, cookieDomain) != 0
    }

    /// The registrable domain ("eTLD+1") of `host`, such as `example.co.uk` for
    /// `www.example.co.uk`; nil for a public suffix itself and for an IP address.
    ///
    /// Without data, the last two labels.
    package func registrableDomain(of host: String) -> String? {
        guard Self.isLookupSafe(host), !CookieRequest.isIPAddress(host) else { return nil }
        guard let context else {
            let labels = host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            guard labels.count >= 2 else { return nil }
            return String(decoding: host.utf8.suffix(labels[labels.count - 2].count + 1 + labels[labels.count - 1].count),
                          as: UTF8.self)
        }
        // libpsl returns a pointer into `host`'s C copy, valid only inside this closure.
        return host.withCString { pointer in
            psl_registrable_domain(context, pointer).map { String(cString: $0) }
        }
    }

    /// What libpsl may be asked about: not empty, no NUL (which would cut the C string short).
    private static func isLookupSafe(_ name: String) -> Bool {
        !name.isEmpty && !name.utf8.contains(0)
    }
}
