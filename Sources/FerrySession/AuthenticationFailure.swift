/// Why an HTTP authentication challenge cannot be answered, or a credential cannot be sent.
/// `description` is a phrase for people (the task layer turns it into a ``NetworkError``).
enum AuthenticationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// A Digest answer was asked of a challenge of another scheme.
    case notDigest(scheme: String)
    /// A required Digest parameter (realm, nonce) is missing.
    case missingParameter(String)
    /// The Digest challenge names an algorithm Ferry does not know.
    case unknownAlgorithm(String)
    /// The Digest challenge offers qop values, none of them `auth` (typically only `auth-int`).
    case unsupportedQop([String])
    /// A `-sess` algorithm without qop: the client nonce could not be sent, so no answer works.
    case sessionAlgorithmWithoutQop(String)
    /// OpenSSL refused the hash (MD5 under a FIPS-only configuration).
    case hashUnavailable(String)
    /// A value to be sent holds a character it may not: a control character in a Basic user
    /// name or password, a method that is not a token, a CR or LF in a Digest URI.
    case invalidCharacter(String)
    /// A Basic user name with a colon (RFC 7617 §2), which the server would split wrongly.
    case colonInUserName
    /// None of the challenges is of a scheme Ferry answers (or the caller allowed).
    case noSupportedScheme(offered: [String])

    /// A phrase for people, for example `Digest challenge: unknown algorithm "SHA3-256"`.
    var description: String {
        switch self {
        case .notDigest(let scheme):
            "challenge of scheme \"\(scheme.prefix(40))\" is not Digest"
        case .missingParameter(let name):
            "Digest challenge without \(name)"
        case .unknownAlgorithm(let name):
            "Digest challenge: unknown algorithm \"\(name.prefix(40))\""
        case .unsupportedQop(let offered):
            "Digest challenge: only qop=\(offered.joined(separator: ",").prefix(60)) offered (refused: Ferry answers qop=auth)"
        case .sessionAlgorithmWithoutQop(let name):
            "Digest challenge: \(name) without qop cannot be answered"
        case .hashUnavailable(let name):
            "Digest: OpenSSL cannot compute \(name) here"
        case .invalidCharacter(let what):
            "\(what) holds a character that cannot be sent"
        case .colonInUserName:
            "Basic: a user name may not contain ':'"
        case .noSupportedScheme(let offered):
            offered.isEmpty
                ? "no authentication challenge in the response"
                : "no supported authentication scheme offered (\(offered.prefix(8).joined(separator: ", ")))"
        }
    }
}
