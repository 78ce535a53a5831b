import FoundationEssentials

/// Why a Set-Cookie field gave no cookie: for tests and logs, never shown to a server.
package enum SetCookieRejection: Error, Sendable, Hashable {
    /// The field has a control character other than HTAB (RFC 6265bis §5.6 step 1).
    case controlCharacter
    /// Both name and value are empty (§5.6).
    case emptyNameAndValue
    /// Name and value together exceed ``Cookie/maximumNameAndValueBytes`` (§5.6).
    case tooLarge(bytes: Int)
    /// The Domain attribute is not ASCII (§5.7): Ferry has no IDNA mapping to apply to it.
    case nonASCIIDomain(String)
    /// The request host is not within the Domain attribute (§5.7, domain-match).
    case domainMismatch(String)
    /// The Domain attribute names a public suffix other than the host itself (§5.7).
    case publicSuffix(String)
    /// The request host is not a name a cookie can be stored for.
    case invalidHost(String)
    /// A Secure cookie from a request that was not secure (§5.7).
    case secureFromInsecureRequest
    /// A `__Secure-` or `__Host-` name whose rules are not met (§4.1.3, §5.7).
    case prefixRequirementsNotMet
    /// A `Set-Cookie:` line of a cookie file without the Domain attribute it needs.
    case missingDomain
}

/// The attributes of one Set-Cookie field once lexed (RFC 6265bis §5.6): of each attribute the
/// last one that counts, as the storage model (§5.7) reads them.
struct SetCookieFields: Sendable, Hashable {
    var name: String
    var value: String
    /// The last valid Expires, already capped at ``SetCookieParser/maximumLifetime``.
    var expires: Date?
    /// The last valid Max-Age in seconds (saturated; zero or less expires the cookie).
    var maxAge: Int64?
    /// The last non-empty Domain attribute, without its leading dot, ASCII lower case.
    var domain: String?
    /// The last Path attribute; "" when it was empty or did not start with `/` (the
    /// default-path then applies).
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    /// The last SameSite attribute; nil for an unknown value (6265bis's "Default").
    var sameSite: Cookie.SameSite?
}

/// Set-Cookie processing (RFC 6265bis §5.6 parsing, §5.1.1 dates, §5.7 storage-model checks
/// that need only the request): pure, clock passed in. What the jar already holds (the
/// "leave secure cookies alone" rule, replacement) is ``CookieStorage``'s part.
package enum SetCookieParser {
    /// The longest lifetime a server may give: 400 days (RFC 6265bis §5.6.1, §5.6.2; curl and
    /// browsers cap Expires and Max-Age alike).
    package static let maximumLifetime: TimeInterval = 400 * 24 * 60 * 60

    /// The cookie a Set-Cookie field value sets when received in the response to `url`, or why
    /// it sets none.
    package static func parse(_ field: String, url: URL, now: Date,
                              publicSuffixes: PublicSuffixList = .system) -> Result<Cookie, SetCookieRejection> {
        guard let request = CookieRequest(url: url) else { return .failure(.invalidHost("")) }
        return parse(field, request: request, now: now, publicSuffixes: publicSuffixes)
    }

    /// ``parse(_:url:now:publicSuffixes:)`` for a request already canonicalized.
    static func parse(_ field: String, request: CookieRequest, now: Date,
                      publicSuffixes: PublicSuffixList) -> Result<Cookie, SetCookieRejection> {
        switch lex(field, now: now) {
        case .success(let fields): return makeCookie(fields, request: request, now: now, publicSuffixes: publicSuffixes)
        case .failure(let rejection): return .failure(rejection)
        }
    }

    // MARK: - §5.6: name, value, attributes

    /// Splits a Set-Cookie field value into name, value and attributes (RFC 6265bis §5.6).
    static func lex(_ field: String, now: Date) -> Result<SetCookieFields, SetCookieRejection> {
        var field = field
        return field.withUTF8 { buffer in lex(bytes: buffer[...], now: now) }
    }

    private static func lex(bytes: Slice<UnsafeBufferPointer<UInt8>>, now: Date) -> Result<SetCookieFields, SetCookieRejection> {
        if bytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) { return .failure(.controlCharacter) }
        let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        let pair = bytes[..<semicolon]
        var name = pair[pair.startIndex..<pair.startIndex], value = pair
        if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
            name = pair[..<equals]
            value = pair[pair.index(after: equals)...]
        }
        name = trimmed(name)
        value = trimmed(value)
        guard !(name.isEmpty && value.isEmpty) else { return .failure(.emptyNameAndValue) }
        let size = name.count + value.count
        guard size <= Cookie.maximumNameAndValueBytes else { return .failure(.tooLarge(bytes: size)) }

        var fields = SetCookieFields(name: string(name), value: string(value))
        var rest = bytes[semicolon...]
        while let first = rest.first, first == UInt8(ascii: ";") {
            rest = rest.dropFirst()
            let end = rest.firstIndex(of: UInt8(ascii: ";")) ?? rest.endIndex
            let attribute = rest[..<end]
            rest = rest[end...]
            var attributeName = attribute, attributeValue = attribute[attribute.endIndex...]
            if let equals = attribute.firstIndex(of: UInt8(ascii: "=")) {
                attributeName = attribute[..<equals]
                attributeValue = attribute[attribute.index(after: equals)...]
            }
            attributeName = trimmed(attributeName)
            attributeValue = trimmed(attributeValue)
            guard attributeValue.count <= Cookie.maximumAttributeValueBytes else { continue }
            apply(name: attributeName, value: attributeValue, to: &fields, now: now)
        }
        return .success(fields)
    }

    /// One cookie-av (RFC 6265bis §5.6.1–§5.6.7); unknown attributes are ignored.
    private static func apply(name: Slice<UnsafeBufferPointer<UInt8>>, value: Slice<UnsafeBufferPointer<UInt8>>,
                              to fields: inout SetCookieFields, now: Date) {
        switch lowercased(name) {
        case "expires":
            if let date = cookieDate(bytes: value) {
                fields.expires = min(date, now.addingTimeInterval(maximumLifetime))
            }
        case "max-age":
            if let seconds = maxAge(value) { fields.maxAge = seconds }
        case "domain":
            // An empty Domain attribute is ignored (§5.6.3); "." alone leaves an empty domain,
            // which makes the cookie host-only.
            guard !value.isEmpty else { return }
            let withoutDot = value.first == UInt8(ascii: ".") ? value.dropFirst() : value
            fields.domain = lowercased(withoutDot)
        case "path":
            fields.path = value.first == UInt8(ascii: "/") ? string(value) : ""
        case "secure":
            fields.isSecure = true
        case "httponly":
            fields.isHTTPOnly = true
        case "samesite":
            switch lowercased(value) {
            case "strict": fields.sameSite = .strict
            case "lax": fields.sameSite = .lax
            case "none": fields.sameSite = .noRestriction
            default: fields.sameSite = nil
            }
        default:
            break
        }
    }

    /// Max-Age's value (§5.6.2): an optional `-` and digits, nothing else; saturates rather
    /// than overflows.
    private static func maxAge(_ value: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        let negative = value.first == UInt8(ascii: "-")
        let digits = negative ? value.dropFirst() : value
        guard !digits.isEmpty, digits.allSatisfy(isDigit) else { return nil }
        var seconds: Int64 = 0
        for digit in digits where seconds < Int64.max / 10 - 9 {
            seconds = seconds * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return negative ? -seconds : seconds
    }

    // MARK: - §5.7: the checks that need the request

    /// Turns lexed fields into a cookie for `request` (RFC 6265bis §5.7 up to the jar's steps).
    static func makeCookie(_ fields: SetCookieFields, request: CookieRequest, now: Date,
                           publicSuffixes: PublicSuffixList) -> Result<Cookie, SetCookieRejection> {
        var expiry: Date?
        if let maxAge = fields.maxAge {
            // Max-Age wins over Expires, wherever each stands (§5.7).
            expiry = maxAge <= 0 ? .distantPast : now.addingTimeInterval(min(TimeInterval(maxAge), maximumLifetime))
        } else {
            expiry = fields.expires
        }

        guard Cookie.isValidDomain(request.host) else { return .failure(.invalidHost(request.host)) }
        var domain = request.host
        var isHostOnly = true
        if let attribute = fields.domain, !attribute.isEmpty {
            guard attribute.utf8.allSatisfy({ $0 < 0x80 }) else { return .failure(.nonASCIIDomain(attribute)) }
            if attribute == request.host {
                // Naming the host itself: a domain cookie, unless the host is an IP address or
                // a public suffix (then host-only, §5.7).
                isHostOnly = request.isIPAddress || publicSuffixes.isPublicSuffix(attribute)
            } else {
                guard CookieRequest.domainMatches(request.host, attribute, hostIsIPAddress: request.isIPAddress) else {
                    return .failure(.domainMismatch(attribute))
                }
                guard !publicSuffixes.isPublicSuffix(attribute),
                      publicSuffixes.isCookieDomainAcceptable(attribute, forHost: request.host) else {
                    return .failure(.publicSuffix(attribute))
                }
                domain = attribute
                isHostOnly = false
            }
        }

        let path = fields.path.flatMap { $0.isEmpty ? nil : $0 } ?? CookieRequest.defaultPath(request.path)
        if fields.isSecure && !request.isSecure { return .failure(.secureFromInsecureRequest) }

        let cookie = Cookie(name: fields.name, value: fields.value, domain: domain, path: path,
                            isHostOnly: isHostOnly, isSecure: fields.isSecure, isHTTPOnly: fields.isHTTPOnly,
                            sameSite: fields.sameSite, expiresDate: expiry, creationDate: now)
        guard cookie.meetsPrefixRequirements(pathAttributeGiven: fields.path != nil) else {
            return .failure(.prefixRequirementsNotMet)
        }
        return .success(cookie)
    }

    // MARK: - §5.1.1: dates

    /// The cookie-date algorithm (RFC 6265bis §5.1.1); nil when the date is not one.
    static func cookieDate(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { cookieDate(bytes: $0[...]) }
    }

    private static func cookieDate(bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?, month: Int?, year: Int?
        var index = bytes.startIndex
        while index < bytes.endIndex {
            while index < bytes.endIndex, isDateDelimiter(bytes[index]) { index += 1 }
            let start = index
            while index < bytes.endIndex, !isDateDelimiter(bytes[index]) { index += 1 }
            guard start < index else { break }
            let token = bytes[start..<index]
            // Each token fills the first field, in this order, that it matches and that is
            // still unset.
            if time == nil, let found = timeToken(token) {
                time = found
            } else if day == nil, let found = digitsToken(token, minimum: 1, maximum: 2) {
                day = found
            } else if month == nil, let found = monthToken(token) {
                month = found
            } else if year == nil, let found = digitsToken(token, minimum: 2, maximum: 4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
              day <= daysInMonth(month, year: year) else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400
            + time.hour * 3600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E (§5.1.1).
    private static func isDateDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: return true
        default: return false
        }
    }

    /// `minimum`…`maximum` digits, then the token's end or a non-digit and anything.
    private static func digitsToken(_ token: Slice<UnsafeBufferPointer<UInt8>>, minimum: Int, maximum: Int) -> Int? {
        let digits = token.prefix(while: isDigit)
        guard digits.count >= minimum, digits.count <= maximum else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// hms-time = time-field ":" time-field ":" time-field, each 1*2DIGIT, then the token's end
    /// or a non-digit and anything.
    private static func timeToken(_ token: Slice<UnsafeBufferPointer<UInt8>>) -> (hour: Int, minute: Int, second: Int)? {
        var rest = token
        var parts: [Int] = []
        parts.reserveCapacity(3)
        for position in 0..<3 {
            if position > 0 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
            let digits = rest.prefix(while: isDigit)
            guard (1...2).contains(digits.count) else { return nil }
            parts.append(digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
            rest = rest[digits.endIndex...]
        }
        return (parts[0], parts[1], parts[2])
    }

    /// A month's first three letters (any case), then anything.
    private static func monthToken(_ token: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard token.count >= 3 else { return nil }
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        let prefix = lowercased(token.prefix(3))
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar: years counted from
    /// March, so a leap day falls at a year's end, in 400-year cycles of 146,097 days.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let cycle = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfCycle = marchYear - cycle * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfCycle = yearOfCycle * 365 + yearOfCycle / 4 - yearOfCycle / 100 + dayOfYear
        return cycle * 146_097 + dayOfCycle - 719_468
    }

    // MARK: - Bytes

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Without leading and trailing WSP (SP and HTAB).
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
              let last = bytes.lastIndex(where: { !isSpace($0) }) else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    private static func string(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// ASCII lower case; other bytes as they are.
    private static func lowercased(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: bytes.lazy.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 },
               as: UTF8.self)
    }
}
