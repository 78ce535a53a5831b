import FerryBase
import FoundationEssentials

/// The parts of a request URL the cookie rules look at, canonicalized once (RFC 6265bis §5.1.2,
/// §5.1.3, §5.1.4), and the matching algorithms over them. Pure.
struct CookieRequest: Sendable, Hashable {
    /// The canonicalized request-host: lower case, an IPv6 literal without its brackets.
    let host: String
    /// The request's path as sent (percent-encoded), `/` when the URL has none.
    let path: String
    /// Whether the request is made over a "secure" protocol in the sense of RFC 6265bis §5.8.3
    /// (see ``isSecureContext(scheme:host:)``).
    let isSecure: Bool
    /// Whether ``host`` is an IP address (which never domain-matches a parent domain).
    let isIPAddress: Bool

    /// The request that `url` names; nil when it has no host.
    init?(url: URL) {
        guard let rawHost = url.host(percentEncoded: false), !rawHost.isEmpty else { return nil }
        let host = Self.canonicalHost(rawHost)
        let path = url.path(percentEncoded: true)
        self.init(host: host, path: path.isEmpty ? "/" : path,
                  isSecure: Self.isSecureContext(scheme: url.scheme ?? "", host: host))
    }

    /// A request for `host` (already canonical) and `path`.
    init(host: String, path: String, isSecure: Bool) {
        self.host = host
        self.path = path
        self.isSecure = isSecure
        self.isIPAddress = Self.isIPAddress(host)
    }

    /// Lower case, without the brackets of an IPv6 literal.
    static func canonicalHost(_ host: String) -> String {
        String(HostName.unbracketed(host)).lowercased()
    }

    /// Which requests count as secure for the Secure attribute: https and wss, and — as curl
    /// decides, since nothing on the wire can be snooped there — plain http to `localhost`,
    /// `127.0.0.1` and `::1`. So a Secure cookie set by a local development server over http is
    /// kept and sent back to it.
    static func isSecureContext(scheme: String, host: String) -> Bool {
        switch scheme.lowercased() {
        case "https", "wss": return true
        default: return host == "localhost" || host == "127.0.0.1" || host == "::1"
        }
    }

    /// Whether `host` is an IP address: an IPv6 literal (it has a colon), or a name whose last
    /// label is all digits (an IPv4 address in any of its spellings; no public name ends so).
    static func isIPAddress(_ host: String) -> Bool {
        let utf8 = host.utf8
        if utf8.contains(UInt8(ascii: ":")) { return true }
        var lastLabel = utf8[...]
        if let dot = utf8.lastIndex(of: UInt8(ascii: ".")) { lastLabel = utf8[utf8.index(after: dot)...] }
        return !lastLabel.isEmpty && lastLabel.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Domain matching (RFC 6265bis §5.1.3): `host` is `domain`, or a name below it when
    /// `host` is not an IP address. Both are canonical (lower case).
    static func domainMatches(_ host: String, _ domain: String, hostIsIPAddress: Bool) -> Bool {
        if host == domain { return true }
        guard !hostIsIPAddress else { return false }
        let hostBytes = host.utf8, domainBytes = domain.utf8
        guard !domainBytes.isEmpty, hostBytes.count > domainBytes.count else { return false }
        let dot = hostBytes.index(hostBytes.endIndex, offsetBy: -(domainBytes.count + 1))
        return hostBytes[dot] == UInt8(ascii: ".") && hostBytes[hostBytes.index(after: dot)...].elementsEqual(domainBytes)
    }

    /// Path matching (RFC 6265bis §5.1.4): the request path is the cookie's path, or lies below
    /// it at a `/` boundary.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        let request = requestPath.utf8, cookie = cookiePath.utf8
        guard request.starts(with: cookie) else { return false }
        if request.count == cookie.count || cookie.last == UInt8(ascii: "/") { return true }
        return request[request.index(request.startIndex, offsetBy: cookie.count)] == UInt8(ascii: "/")
    }

    /// The default-path of a request path (RFC 6265bis §5.1.4): up to, not including, its
    /// right-most `/`; `/` when that is the first character or the path does not start with one.
    static func defaultPath(_ requestPath: String) -> String {
        let utf8 = requestPath.utf8
        guard utf8.first == UInt8(ascii: "/"), let slash = utf8.lastIndex(of: UInt8(ascii: "/")),
              slash != utf8.startIndex else { return "/" }
        return String(decoding: utf8[..<slash], as: UTF8.self)
    }

    /// Whether a cookie belongs in this request's Cookie field, expiry aside (RFC 6265bis
    /// §5.8.3 step 1): host (exactly for a host-only cookie), path, and Secure.
    func accepts(_ cookie: Cookie) -> Bool {
        if cookie.isSecure && !isSecure { return false }
        let hostMatches = cookie.isHostOnly
            ? host == cookie.domain
            : Self.domainMatches(host, cookie.domain, hostIsIPAddress: isIPAddress)
        return hostMatches && Self.pathMatches(path, cookie.path)
    }
}
