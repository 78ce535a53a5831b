import FerryWire

/// One challenge of a `WWW-Authenticate` or `Proxy-Authenticate` field (RFC 9110 §11.3,
/// §11.6.1, §11.7.1): a scheme and either auth-params or a token68. Pure values; the task
/// layer picks one with ``choose(from:allowing:)`` and answers it.
///
/// Parsing is forgiving the way browsers and curl are, and bounded: a malformed part is
/// skipped without losing the well-formed challenges around it, unknown schemes are kept (the
/// caller picks), and at most ``maximumChallenges`` challenges of at most
/// ``maximumParameters`` parameters each are read, in one pass over the bytes.
struct HTTPAuthChallenge: Sendable, Equatable {
    /// The scheme, lower-cased (`basic`, `digest`, `bearer`, …): schemes are case-insensitive
    /// (RFC 9110 §11.1).
    var scheme: String
    /// The auth-params, names lower-cased, values unquoted (quoted-pairs resolved). Each name
    /// keeps its first occurrence (RFC 9110 §11.2 allows one).
    var parameters: [String: String]
    /// The token68 form (`Negotiate YIIG…`), when the challenge has one instead of parameters.
    var token68: String?

    /// Most challenges read over all fields of a response; later ones are ignored.
    static let maximumChallenges = 32
    /// Most parameters kept for one challenge; later ones are ignored.
    static let maximumParameters = 64

    /// Creates a challenge; `scheme` and parameter names are lower-cased.
    init(scheme: String, parameters: [String: String] = [:], token68: String? = nil) {
        self.scheme = scheme.lowercased()
        self.parameters = Dictionary(parameters.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        self.token68 = token68
    }

    /// The `realm` parameter, if any (RFC 9110 §11.5).
    var realm: String? { parameters["realm"] }

    /// The challenges of `fieldValues` (every `WWW-Authenticate`, or every
    /// `Proxy-Authenticate`, field of one response, in order).
    static func parse(_ fieldValues: some Sequence<String>) -> [HTTPAuthChallenge] {
        var challenges: [HTTPAuthChallenge] = []
        for value in fieldValues {
            var parser = FieldParser(bytes: Array(value.utf8))
            guard parser.parse(into: &challenges) else { break }
        }
        return challenges
    }
}

// MARK: - Choosing a challenge

/// Which authentication schemes a task answers: curl's `--anyauth`, `--basic`, `--digest`.
enum HTTPAuthSchemeChoice: Sendable, Equatable {
    /// The strongest the server offers and Ferry supports: Digest (SHA-512/256, then SHA-256,
    /// then MD5), then Basic.
    case strongest
    /// Basic only.
    case basicOnly
    /// Digest only.
    case digestOnly
}

/// The challenge picked to be answered, ready to compute an `Authorization` value.
enum ChosenAuthChallenge: Sendable, Equatable {
    /// Basic (RFC 7617), with the challenge it answers (its realm, charset).
    case basic(HTTPAuthChallenge)
    /// Digest (RFC 7616), already validated.
    case digest(DigestChallenge)

    /// The protection space's method for this scheme.
    var authenticationMethod: AuthenticationMethod {
        switch self {
        case .basic: .httpBasic
        case .digest: .httpDigest
        }
    }

    /// The realm the server named, if any.
    var realm: String? {
        switch self {
        case .basic(let challenge): challenge.realm
        case .digest(let challenge): challenge.realm
        }
    }
}

extension HTTPAuthChallenge {
    /// The challenge to answer among `challenges`: the strongest of the schemes `schemes`
    /// allows (Digest by hash strength, then Basic); among equals, the first the server sent.
    /// A Digest challenge Ferry cannot answer (unknown algorithm, only `auth-int`) is passed
    /// over for the next best.
    /// - Throws: ``AuthenticationFailure``: the first refused Digest challenge's reason when
    ///   nothing else is left, else ``AuthenticationFailure/noSupportedScheme(offered:)``.
    static func choose(from challenges: [HTTPAuthChallenge],
                       allowing schemes: HTTPAuthSchemeChoice = .strongest) throws(AuthenticationFailure) -> ChosenAuthChallenge {
        let allowsBasic = schemes != .digestOnly
        let allowsDigest = schemes != .basicOnly
        var bestDigest: DigestChallenge?
        var firstDigestFailure: AuthenticationFailure?
        var basic: HTTPAuthChallenge?
        for challenge in challenges {
            switch challenge.scheme {
            case "digest" where allowsDigest:
                do throws(AuthenticationFailure) {
                    let digest = try DigestChallenge(challenge)
                    if bestDigest.map({ digest.algorithm.strength > $0.algorithm.strength }) ?? true { bestDigest = digest }
                } catch {
                    firstDigestFailure = firstDigestFailure ?? error
                }
            case "basic" where allowsBasic:
                basic = basic ?? challenge
            default:
                continue
            }
        }
        if let bestDigest { return .digest(bestDigest) }
        if let basic { return .basic(basic) }
        if let firstDigestFailure { throw firstDigestFailure }
        throw .noSupportedScheme(offered: challenges.map(\.scheme))
    }
}

// MARK: - Parsing

/// One field value, read once from start to end (RFC 9110 §11.6.1):
/// `#( auth-scheme [ 1*SP ( token68 / #auth-param ) ] )`, where auth-params and challenges
/// share the same commas.
private struct FieldParser {
    let bytes: [UInt8]
    var index = 0
    /// The challenge being read, and whether parameters may still join it (not after a token68
    /// or before the field's first scheme).
    var current: HTTPAuthChallenge?
    var takesParameters = false

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Appends the field's challenges to `challenges`; false once the limit is reached.
    mutating func parse(into challenges: inout [HTTPAuthChallenge]) -> Bool {
        defer { if let current, challenges.count < HTTPAuthChallenge.maximumChallenges { challenges.append(current) } }
        while true {
            skipSeparators()
            guard index < bytes.count else { return true }
            let elementStart = index
            if let parameter = parameter() {
                add(parameter.name, parameter.value)
                continue
            }
            index = elementStart
            let scheme = token()
            let afterScheme = index
            skipWhitespace()
            guard !scheme.isEmpty, !(index < bytes.count && bytes[index] == UInt8(ascii: "=")) else {
                skipElement()  // a parameter with a malformed value, or no name at all
                continue
            }
            // A new challenge.
            if let finished = current {
                challenges.append(finished)
                current = nil
            }
            guard challenges.count < HTTPAuthChallenge.maximumChallenges else { return false }
            guard atElementEnd || index > afterScheme else {
                skipElement()  // `Basic"x"`: no space after the scheme; the challenge is dropped
                continue
            }
            current = HTTPAuthChallenge(scheme: String(decoding: scheme, as: UTF8.self))
            takesParameters = true
            guard !atElementEnd else { continue }
            let afterSpace = index
            if let token68 = token68() {
                current?.token68 = token68
                takesParameters = false
                continue
            }
            index = afterSpace
            if let parameter = parameter() {
                add(parameter.name, parameter.value)
            } else {
                index = afterSpace
                skipElement()  // `Custom abc def`: neither token68 nor auth-param
            }
        }
    }

    /// Whether the element ends here: at a comma or the end of the field.
    private var atElementEnd: Bool { index >= bytes.count || bytes[index] == HTTPSyntax.comma }

    private mutating func add(_ name: ArraySlice<UInt8>, _ value: [UInt8]) {
        guard takesParameters, var challenge = current,
              challenge.parameters.count < HTTPAuthChallenge.maximumParameters else { return }
        let key = String(decoding: name, as: UTF8.self).lowercased()
        guard challenge.parameters[key] == nil else { return }
        challenge.parameters[key] = String(decoding: value, as: UTF8.self)
        current = challenge
    }

    /// `token BWS "=" BWS ( token / quoted-string )` ending its element, or nil (the index
    /// then means nothing). An unquoted value is read up to whitespace or a comma, so the
    /// common `nonce=abc/def==` without quotes still works, as in curl.
    private mutating func parameter() -> (name: ArraySlice<UInt8>, value: [UInt8])? {
        let name = token()
        guard !name.isEmpty else { return nil }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
        index += 1
        skipWhitespace()
        guard index < bytes.count else { return nil }
        let value: [UInt8]
        if bytes[index] == UInt8(ascii: "\"") {
            guard let quoted = quotedString() else { return nil }
            value = quoted
        } else {
            let start = index
            while index < bytes.count, bytes[index] != HTTPSyntax.comma, !HTTPSyntax.isWhitespace(bytes[index]) {
                guard bytes[index] != UInt8(ascii: "\"") else { return nil }
                index += 1
            }
            guard index > start else { return nil }  // `realm=,`: a value is one byte or more
            value = Array(bytes[start..<index])
        }
        skipWhitespace()
        return atElementEnd ? (name, value) : nil
    }

    /// `token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="` ending its
    /// element, or nil.
    private mutating func token68() -> String? {
        let start = index
        while index < bytes.count, Self.isToken68Byte(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
        let end = index
        skipWhitespace()
        return atElementEnd ? String(decoding: bytes[start..<end], as: UTF8.self) : nil
    }

    /// A quoted-string from its opening quote (RFC 9110 §5.6.4): a backslash takes the next
    /// byte literally. Nil when the closing quote is missing (the index is then at the end).
    private mutating func quotedString() -> [UInt8]? {
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return value
            case UInt8(ascii: "\\") where index < bytes.count:
                value.append(bytes[index])
                index += 1
            default:
                value.append(byte)
            }
        }
        return nil
    }

    private mutating func token() -> ArraySlice<UInt8> {
        let start = index
        while index < bytes.count, HTTPSyntax.isTokenByte(bytes[index]) { index += 1 }
        return bytes[start..<index]
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, HTTPSyntax.isWhitespace(bytes[index]) { index += 1 }
    }

    /// Skips OWS and empty list elements (RFC 9110 §5.6.1).
    private mutating func skipSeparators() {
        while index < bytes.count, HTTPSyntax.isWhitespace(bytes[index]) || bytes[index] == HTTPSyntax.comma { index += 1 }
    }

    /// Skips a malformed element: up to the next comma outside a quoted-string. A quote opens
    /// one only where a value may start (first, or after `=`), so a stray quote inside
    /// `realm=a"b` does not swallow the challenges after it.
    private mutating func skipElement() {
        var quoted = false
        var previous = UInt8(ascii: "=")
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { quoted = false }
            } else if byte == UInt8(ascii: "\"") && previous == UInt8(ascii: "=") {
                quoted = true
            } else if byte == HTTPSyntax.comma {
                return
            }
            if !HTTPSyntax.isWhitespace(byte) { previous = byte }
            index += 1
        }
    }

    private static func isToken68Byte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }
}
