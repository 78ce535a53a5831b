import FerrySession

extension FuzzTarget {
    /// `WWW-Authenticate` (and `Proxy-Authenticate`) values: the input is split into field
    /// values at newlines; every challenge is parsed, Digest ones read, one chosen.
    static let authenticationChallenge = FuzzTarget(
        name: "auth-challenge",
        summary: "WWW-Authenticate / Proxy-Authenticate challenges (RFC 9110 §11: token68, auth-params, quoted strings), Digest (RFC 7616) and the choice"
    ) { input in
        let values = String(decoding: input, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        FuzzEntryPoints.authenticationChallenges(values)
    }
}
