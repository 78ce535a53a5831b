import FerryTLS
import FerryWire

/// A Digest challenge (RFC 7616 §3.3) checked and ready to answer: what a client needs from
/// an ``HTTPAuthChallenge`` whose scheme is `digest`. Pure: the `Authorization` (or
/// `Proxy-Authorization`) value is computed from it with ``authorization(user:password:method:uri:nonceCount:cnonce:)``.
///
/// Ferry answers `qop=auth` and the legacy RFC 2069 form without qop; a challenge offering
/// only `auth-int` is refused (it would need the whole request body hashed first).
/// User names and passwords are hashed as UTF-8, whatever `charset` says, as curl does
/// (no Unicode normalization is applied).
struct DigestChallenge: Sendable, Equatable {
    /// The quality of protection Ferry answers with.
    enum QualityOfProtection: String, Sendable, Equatable {
        /// Authentication only (RFC 7616 §3.4.3): the method and request-target are hashed.
        case auth
    }

    /// The realm (required, RFC 7616 §3.3), unquoted; hashed into the answer.
    var realm: String
    /// The server's nonce, unquoted.
    var nonce: String
    /// The opaque value to echo, if the server sent one.
    var opaque: String?
    /// The hash and whether it is a `-sess` variant; MD5 when the challenge names none.
    var algorithm: DigestAlgorithm
    /// Whether the challenge named its algorithm: only then is `algorithm=` sent back, so a
    /// legacy server that never heard of the parameter sees the answer it expects.
    var namesAlgorithm: Bool
    /// `.auth` when the server offers it; nil for a legacy (RFC 2069) challenge without qop.
    var qop: QualityOfProtection?
    /// `stale=true`: the previous answer was right but its nonce expired; retry with this
    /// nonce without asking for credentials again (RFC 7616 §3.3).
    var isStale: Bool
    /// `userhash=true`: send `H(user:realm)` instead of the user name (RFC 7616 §3.4.4).
    var userhash: Bool
    /// The `charset` the server named (only `UTF-8` is defined), if any.
    var charset: String?
    /// The `domain` URIs the protection space covers, if the server listed them.
    var domain: [String]

    /// Reads the Digest parameters of `challenge`.
    /// - Throws: ``AuthenticationFailure``: `notDigest`, `missingParameter` (realm, nonce),
    ///   `unknownAlgorithm`, `unsupportedQop`.
    init(_ challenge: HTTPAuthChallenge) throws(AuthenticationFailure) {
        guard challenge.scheme == "digest" else { throw .notDigest(scheme: challenge.scheme) }
        let parameters = challenge.parameters
        guard let realm = parameters["realm"] else { throw .missingParameter("realm") }
        guard let nonce = parameters["nonce"] else { throw .missingParameter("nonce") }
        self.realm = realm
        self.nonce = nonce
        opaque = parameters["opaque"]
        if let name = parameters["algorithm"] {
            guard let algorithm = DigestAlgorithm(name: name) else { throw .unknownAlgorithm(name) }
            self.algorithm = algorithm
            namesAlgorithm = true
        } else {
            algorithm = DigestAlgorithm(hash: .md5, isSession: false)
            namesAlgorithm = false
        }
        // qop is a quoted, comma-separated list (RFC 7616 §3.3); an empty one offers nothing.
        let offered = (parameters["qop"] ?? "").split(separator: ",").map { HTTPSyntax.trimmingWhitespace($0).lowercased() }
            .filter { !$0.isEmpty }
        if offered.isEmpty {
            qop = nil
        } else if offered.contains(QualityOfProtection.auth.rawValue) {
            qop = .auth
        } else {
            throw .unsupportedQop(offered)
        }
        isStale = parameters["stale"]?.lowercased() == "true"
        userhash = parameters["userhash"]?.lowercased() == "true"
        charset = parameters["charset"]
        domain = (parameters["domain"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// The `Digest …` value of an `Authorization` (or `Proxy-Authorization`) field answering
    /// this challenge (RFC 7616 §3.4), parameters in the RFC's order; `algorithm`, `qop`, `nc`
    /// and `userhash` unquoted, every other value a quoted-string.
    /// - Parameters:
    ///   - user: The user name. Sent hashed when ``userhash``; as `username*` (RFC 8187,
    ///     UTF-8, percent-encoded) when it holds anything but printable ASCII; else quoted.
    ///   - password: The password.
    ///   - method: The request's method (`GET`); for a CONNECT, `CONNECT`.
    ///   - uri: The request-target exactly as sent (origin-form path and query, or
    ///     absolute-form to a proxy).
    ///   - nonceCount: How many requests this nonce has answered, this one included (from 1),
    ///     sent as eight hex digits. Unused without qop.
    ///   - cnonce: The client nonce (``makeClientNonce(using:)``). Unused without qop, unless
    ///     the algorithm is a `-sess` one.
    /// - Throws: ``AuthenticationFailure``: `sessionAlgorithmWithoutQop`, `hashUnavailable`,
    ///   `invalidCharacter` (a method that is not a token, or a CR, LF or other control
    ///   character in the URI or cnonce).
    func authorization(user: String, password: String, method: String, uri: String, nonceCount: UInt32,
                       cnonce: String) throws(AuthenticationFailure) -> String {
        guard HTTPSyntax.isToken(method) else { throw .invalidCharacter("method") }
        guard HTTPSyntax.isFieldValue(uri.utf8) else { throw .invalidCharacter("uri") }
        guard HTTPSyntax.isFieldValue(cnonce.utf8) else { throw .invalidCharacter("cnonce") }
        let hash = algorithm.hash
        func H(_ text: String) throws(AuthenticationFailure) -> String {
            guard let digest = MessageDigest.hex(hash, of: text) else { throw .hashUnavailable(algorithm.name) }
            return digest
        }
        // RFC 7616 §3.4.2: A1 = user:realm:password, and for -sess H(that):nonce:cnonce.
        var ha1 = try H("\(user):\(realm):\(password)")
        if algorithm.isSession {
            guard qop != nil else { throw .sessionAlgorithmWithoutQop(algorithm.name) }
            ha1 = try H("\(ha1):\(nonce):\(cnonce)")
        }
        // §3.4.3: A2 = method:request-target for qop=auth (and without qop).
        let ha2 = try H("\(method):\(uri)")
        let nc = Self.nonceCountText(nonceCount)
        let responseInput = if let qop {
            "\(ha1):\(nonce):\(nc):\(cnonce):\(qop.rawValue):\(ha2)"
        } else {
            "\(ha1):\(nonce):\(ha2)"  // RFC 2069
        }
        let response = try H(responseInput)

        var fields: [String] = []
        if userhash {
            let hashedUser = try H("\(user):\(realm)")
            fields.append("username=\(Self.quoted(hashedUser))")
        } else if Self.isQuotable(user) {
            fields.append("username=\(Self.quoted(user))")
        } else {
            fields.append("username*=\(Self.extendedValue(user))")
        }
        fields.append("realm=\(Self.quoted(realm))")
        fields.append("uri=\(Self.quoted(uri))")
        if namesAlgorithm { fields.append("algorithm=\(algorithm.name)") }
        fields.append("nonce=\(Self.quoted(nonce))")
        if let qop {
            fields.append("nc=\(nc)")
            fields.append("cnonce=\(Self.quoted(cnonce))")
            fields.append("qop=\(qop.rawValue)")
        }
        fields.append("response=\(Self.quoted(response))")
        if let opaque { fields.append("opaque=\(Self.quoted(opaque))") }
        if userhash { fields.append("userhash=true") }
        let value = "Digest " + fields.joined(separator: ", ")
        // Parsed challenges cannot carry CR or LF; one built by hand could.
        guard HTTPSyntax.isFieldValue(value.utf8) else { throw .invalidCharacter("Digest challenge") }
        return value
    }

    /// A fresh client nonce: 16 bytes from `generator` as 32 lowercase hex digits. Tests pass
    /// a seeded generator; the task layer uses `SystemRandomNumberGenerator`.
    static func makeClientNonce(using generator: inout some RandomNumberGenerator) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for _ in 0..<16 {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A fresh client nonce from the system's random source.
    static func makeClientNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeClientNonce(using: &generator)
    }

    /// `nc-value = 8LHEX` (RFC 7616 §3.4): `00000001`.
    static func nonceCountText(_ count: UInt32) -> String {
        let digits = String(count, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// `text` as a quoted-string: `"` and `\` are escaped with a backslash (RFC 9110 §5.6.4).
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text.unicodeScalars {
            if character == "\"" || character == "\\" { result.unicodeScalars.append("\\") }
            result.unicodeScalars.append(character)
        }
        result += "\""
        return result
    }

    /// Whether `user` can go in a quoted `username`: printable ASCII and spaces only.
    /// Anything else (non-ASCII, controls) is sent as `username*` (RFC 7616 §3.4).
    static func isQuotable(_ user: String) -> Bool {
        user.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// RFC 8187 §3.2 `ext-value` in UTF-8: `UTF-8''J%C3%A4s%C3%B8n%20Doe`; attr-chars stay,
    /// every other byte is percent-encoded with capital hex digits.
    static func extendedValue(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array("UTF-8''".utf8)
        for byte in text.utf8 {
            if isAttributeCharacter(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 8187 `attr-char`: ALPHA, DIGIT and `!#$&+-.^_`|~`.
    private static func isAttributeCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: "!#$&+-.^_`|~".utf8.contains(byte)
        }
    }
}

/// A Digest `algorithm` (RFC 7616 §3.3, §6.1): the hash, and whether the session variant
/// (`-sess`) hashes the client and server nonces into A1.
struct DigestAlgorithm: Sendable, Hashable {
    /// The hash function.
    var hash: MessageDigest.Algorithm
    /// Whether this is the `-sess` variant.
    var isSession: Bool

    /// The algorithm named `name` (case-insensitive), or nil for an unknown one.
    init?(name: String) {
        var base = name.lowercased()
        isSession = base.hasSuffix("-sess")
        if isSession { base.removeLast(5) }
        switch base {
        case "md5": hash = .md5
        case "sha-256": hash = .sha256
        case "sha-512-256": hash = .sha512_256
        default: return nil
        }
    }

    /// An algorithm from its parts.
    init(hash: MessageDigest.Algorithm, isSession: Bool) {
        self.hash = hash
        self.isSession = isSession
    }

    /// The registered name, as sent back: `MD5`, `SHA-256-sess`, `SHA-512-256`, …
    var name: String {
        let base = switch hash {
        case .md5: "MD5"
        case .sha256: "SHA-256"
        case .sha512_256: "SHA-512-256"
        }
        return isSession ? base + "-sess" : base
    }

    /// Preference among Digest challenges: a stronger hash ranks higher; `-sess` does not count.
    var strength: Int {
        switch hash {
        case .md5: 1
        case .sha256: 2
        case .sha512_256: 3
        }
    }
}
