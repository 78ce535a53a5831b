import FoundationEssentials

/// An HTTP cookie: a name=value pair with the scope and lifetime a server or the caller gave
/// it, as RFC 6265bis §5.7 stores it.
///
/// A `Cookie` is a plain value. `==` and `hash(into:)` compare every property, dates included,
/// so two snapshots of one cookie at different times differ. Which stored cookie a new one
/// replaces is decided by ``id`` instead: the same ``ID`` (name, domain, host-only flag and path,
/// RFC 6265bis §5.7) is the same cookie, whatever its value. Use ``id`` as a dictionary key to
/// keep one entry per cookie.
///
/// Servers' cookies come from ``CookieStorage/storeCookies(fromSetCookieFields:for:mainDocumentURL:)``;
/// build one yourself with ``init(name:value:domain:path:isHostOnly:isSecure:isHTTPOnly:sameSite:expiresDate:creationDate:)``.
public struct Cookie: Sendable, Hashable, Identifiable {
    /// The SameSite attribute (RFC 6265bis §4.1.2.7). Ferry keeps it and writes it nowhere else:
    /// as curl, it is not a browser and has no notion of a cross-site request to enforce it on.
    public enum SameSite: String, Sendable, Hashable, CaseIterable {
        /// `SameSite=Strict`.
        case strict = "Strict"
        /// `SameSite=Lax`.
        case lax = "Lax"
        /// `SameSite=None`. Named as Chrome's cookie API names it, so that it never reads as
        /// `Optional.none` where a `SameSite?` is expected.
        case noRestriction = "None"
    }

    /// A cookie's identity in a jar: a new cookie with the same name, domain, host-only flag and
    /// path replaces the stored one (RFC 6265bis §5.7, "the same name, domain, host-only-flag,
    /// and path").
    public struct ID: Sendable, Hashable {
        /// The cookie's name (case-sensitive).
        public let name: String
        /// The cookie's domain (lower case, no leading dot).
        public let domain: String
        /// Whether the cookie is host-only: a Domain attribute naming the host itself makes a
        /// second, distinct cookie.
        public let isHostOnly: Bool
        /// The cookie's path.
        public let path: String
    }

    /// Why ``init(name:value:domain:path:isHostOnly:isSecure:isHTTPOnly:sameSite:expiresDate:creationDate:)``
    /// refused its arguments.
    public enum ValidationError: Error, Sendable, Hashable {
        /// The name has a control character, `;`, `=`, or leading or trailing space.
        case invalidName(String)
        /// The value has a control character, `;`, or leading or trailing space.
        case invalidValue
        /// Both name and value are empty.
        case emptyNameAndValue
        /// Name and value together exceed ``Cookie/maximumNameAndValueBytes``.
        case tooLarge(bytes: Int)
        /// The domain is empty, too long, or has a character a host name cannot have
        /// (non-ASCII names must be given as IDNA A-labels, `xn--…`).
        case invalidDomain(String)
        /// The path does not start with `/`, is too long, or has a control character or `;`.
        case invalidPath(String)
        /// A `__Secure-` name without `isSecure`, or a `__Host-` name that is not secure,
        /// host-only and at path `/` (RFC 6265bis §4.1.3).
        case prefixRequirementsNotMet(String)
    }

    /// The most bytes name and value may have together (RFC 6265bis §5.6, §6.1).
    public static let maximumNameAndValueBytes = 4096
    /// The most bytes a domain, a path or any other attribute value may have (RFC 6265bis §5.6).
    public static let maximumAttributeValueBytes = 1024

    /// The name; empty for a nameless cookie (`Set-Cookie: token`), whose Cookie field entry is
    /// its value alone.
    public let name: String
    /// The value, as the server sent it (quotes included).
    public let value: String
    /// The domain: canonical lower case, no leading dot.
    public let domain: String
    /// The path; the cookie is sent to this path and those below it.
    public let path: String
    /// True when the cookie goes back to ``domain`` only; false when it also goes to every name
    /// below it (the server gave a Domain attribute).
    public let isHostOnly: Bool
    /// Sent only over a secure connection (https, or http to the local machine: see
    /// ``CookieStorage``).
    public let isSecure: Bool
    /// The HttpOnly attribute: kept and written to cookie files; every Ferry request is HTTP.
    public let isHTTPOnly: Bool
    /// The SameSite attribute, kept but not enforced (see ``SameSite``); nil when the server sent
    /// none or an unknown value.
    public let sameSite: SameSite?
    /// When the cookie expires; nil for a session cookie.
    public let expiresDate: Date?
    /// When the cookie was first stored. A replacement keeps its predecessor's (RFC 6265bis §5.7).
    public internal(set) var creationDate: Date
    /// When the cookie was last stored or sent.
    public internal(set) var lastAccessDate: Date

    /// True for a session cookie: no ``expiresDate``.
    public var isSessionOnly: Bool { expiresDate == nil }

    /// The cookie's identity in a jar (see ``ID``).
    public var id: ID { ID(name: name, domain: domain, isHostOnly: isHostOnly, path: path) }

    /// Makes a cookie from checked parts.
    ///
    /// - Parameters:
    ///   - name: The name: no control characters, `;` or `=`; may be empty if `value` is not.
    ///   - value: The value: no control characters or `;`.
    ///   - domain: The host or domain; a leading dot is dropped, case is folded.
    ///   - path: Where on the host the cookie applies; must start with `/`.
    ///   - isHostOnly: Whether only `domain` itself gets the cookie. nil decides as
    ///     HTTPCookie does: a `domain` with a leading dot means the domain and every name below
    ///     it, one without means that host only. An IP address is always host-only.
    ///   - isSecure: Whether the cookie needs a secure connection.
    ///   - isHTTPOnly: The HttpOnly attribute.
    ///   - sameSite: The SameSite attribute (kept, not enforced).
    ///   - expiresDate: When it expires; nil for a session cookie.
    ///   - creationDate: When it was made; also its first ``lastAccessDate``.
    /// - Throws: ``ValidationError`` naming the first part that is wrong.
    public init(
        name: String,
        value: String,
        domain: String,
        path: String = "/",
        isHostOnly: Bool? = nil,
        isSecure: Bool = false,
        isHTTPOnly: Bool = false,
        sameSite: SameSite? = nil,
        expiresDate: Date? = nil,
        creationDate: Date = Date()
    ) throws(ValidationError) {
        guard Self.isValidToken(name, forbiddingEquals: true) else { throw .invalidName(name) }
        guard Self.isValidToken(value, forbiddingEquals: false) else { throw .invalidValue }
        guard !(name.isEmpty && value.isEmpty) else { throw .emptyNameAndValue }
        let size = name.utf8.count + value.utf8.count
        guard size <= Self.maximumNameAndValueBytes else { throw .tooLarge(bytes: size) }
        let hasLeadingDot = domain.utf8.first == UInt8(ascii: ".")
        let canonicalDomain = CookieRequest.canonicalHost(hasLeadingDot ? String(domain.dropFirst()) : domain)
        guard Self.isValidDomain(canonicalDomain) else { throw .invalidDomain(domain) }
        guard Self.isValidPath(path) else { throw .invalidPath(path) }
        let hostOnly = CookieRequest.isIPAddress(canonicalDomain) || (isHostOnly ?? !hasLeadingDot)
        self.init(name: name, value: value, domain: canonicalDomain, path: path, isHostOnly: hostOnly,
                  isSecure: isSecure, isHTTPOnly: isHTTPOnly, sameSite: sameSite, expiresDate: expiresDate,
                  creationDate: creationDate)
        guard meetsPrefixRequirements(pathAttributeGiven: true) else { throw .prefixRequirementsNotMet(name) }
    }

    /// A cookie whose parts the caller has already checked (the Set-Cookie parser, the cookie
    /// file reader).
    init(name: String, value: String, domain: String, path: String, isHostOnly: Bool, isSecure: Bool,
         isHTTPOnly: Bool, sameSite: SameSite?, expiresDate: Date?, creationDate: Date) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.isHostOnly = isHostOnly
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.expiresDate = expiresDate
        self.creationDate = creationDate
        self.lastAccessDate = creationDate
    }

    /// Whether the cookie has expired at `now`: an expiry at or before it.
    func isExpired(at now: Date) -> Bool {
        guard let expiresDate else { return false }
        return expiresDate <= now
    }

    /// The cookie's entry in a Cookie field (RFC 6265bis §5.8.3 step 4): `name=value`, or the
    /// value alone for a nameless cookie.
    var cookieFieldEntry: String {
        name.isEmpty ? value : name + "=" + value
    }

    // MARK: - Rules shared with the parser and the file reader

    /// The name prefixes' rules (RFC 6265bis §4.1.3, §5.7; matched case-insensitively):
    /// `__Secure-` needs Secure; `__Host-` needs Secure, host-only, and a Path attribute of `/`.
    /// A nameless cookie whose value carries a prefix is refused, as a server would read the
    /// value as a prefixed name.
    func meetsPrefixRequirements(pathAttributeGiven: Bool) -> Bool {
        let subject = name.isEmpty ? value : name
        if Self.hasPrefix(subject, "__secure-") {
            return !name.isEmpty && isSecure
        }
        if Self.hasPrefix(subject, "__host-") {
            return !name.isEmpty && isSecure && isHostOnly && pathAttributeGiven && path == "/"
        }
        return true
    }

    /// Whether `string` starts with `lowercasePrefix`, ignoring ASCII case.
    static func hasPrefix(_ string: String, _ lowercasePrefix: StaticString) -> Bool {
        let bytes = string.utf8
        let count = lowercasePrefix.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        return lowercasePrefix.withUTF8Buffer { prefix in
            zip(bytes.prefix(count), prefix).allSatisfy { byte, expected in
                let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                return lower == expected
            }
        }
    }

    /// A name or value a caller may give: no control character (HTAB included), no `;`, no
    /// leading or trailing space, and for a name no `=`.
    private static func isValidToken(_ token: String, forbiddingEquals: Bool) -> Bool {
        let bytes = token.utf8
        if bytes.first == UInt8(ascii: " ") || bytes.last == UInt8(ascii: " ") { return false }
        return !bytes.contains { byte in
            byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: ";") || (forbiddingEquals && byte == UInt8(ascii: "="))
        }
    }

    /// A canonical domain: 1…253 bytes of ASCII letters, digits, `-`, `_`, `.`, or `:` (an IPv6
    /// address).
    static func isValidDomain(_ domain: String) -> Bool {
        let bytes = domain.utf8
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
                return true
            default:
                return false
            }
        }
    }

    /// A path: starts with `/`, at most ``maximumAttributeValueBytes``, no control character or `;`.
    static func isValidPath(_ path: String) -> Bool {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/"), bytes.count <= maximumAttributeValueBytes else { return false }
        return !bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ";") }
    }
}
