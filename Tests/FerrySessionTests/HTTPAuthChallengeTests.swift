// HTTPAuthChallenge, pure: the WWW-Authenticate grammar of RFC 9110 §11.6.1 (several
// challenges per field, quoted-strings, token68, empty elements), what is skipped when a part
// is malformed, the limits, and which challenge a task answers.
import Testing

@testable import FerrySession

@Suite("WWW-Authenticate parsing")
struct HTTPAuthChallengeTests {
    static func parse(_ fields: String...) -> [HTTPAuthChallenge] {
        HTTPAuthChallenge.parse(fields)
    }

    static func challenge(_ scheme: String, _ parameters: [String: String] = [:], token68: String? = nil) -> HTTPAuthChallenge {
        HTTPAuthChallenge(scheme: scheme, parameters: parameters, token68: token68)
    }

    @Test("one Basic challenge")
    func basic() {
        #expect(Self.parse(#"Basic realm="simple""#) == [Self.challenge("basic", ["realm": "simple"])])
        #expect(Self.parse(#"Basic realm="simple""#).first?.realm == "simple")
    }

    @Test("RFC 9110 §11.6.1's example: two challenges in one field, an escaped quote")
    func rfcExample() {
        let parsed = Self.parse(#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#)
        #expect(parsed == [
            Self.challenge("newauth", ["realm": "apps", "type": "1", "title": #"Login to "apps""#]),
            Self.challenge("basic", ["realm": "simple"]),
        ])
    }

    @Test("several fields keep their order")
    func severalFields() {
        let parsed = Self.parse(#"Digest realm="r", nonce="n""#, #"Basic realm="b""#, "Bearer")
        #expect(parsed.map(\.scheme) == ["digest", "basic", "bearer"])
        #expect(parsed[0].parameters == ["realm": "r", "nonce": "n"])
    }

    @Test("commas and backslashes inside quoted-strings")
    func quotedCommas() {
        let parsed = Self.parse(#"Digest realm="a, b", qop="auth,auth-int", nonce="x\\y\"z", Basic realm="q""#)
        #expect(parsed == [
            Self.challenge("digest", ["realm": "a, b", "qop": "auth,auth-int", "nonce": #"x\y"z"#]),
            Self.challenge("basic", ["realm": "q"]),
        ])
    }

    @Test("token68 challenges, alone and followed by others")
    func token68() {
        #expect(Self.parse("Negotiate YIIGhgYJKoZIhvcSAQICAQBu+/gg==") == [Self.challenge("negotiate", token68: "YIIGhgYJKoZIhvcSAQICAQBu+/gg==")])
        #expect(Self.parse(#"Negotiate abc=, Basic realm="x""#) == [
            Self.challenge("negotiate", token68: "abc="), Self.challenge("basic", ["realm": "x"]),
        ])
        #expect(Self.parse("Bearer abc") == [Self.challenge("bearer", token68: "abc")])
        // Parameters cannot follow a token68 (RFC 9110 §11.2): they are dropped.
        #expect(Self.parse(#"Negotiate abc, realm="x""#) == [Self.challenge("negotiate", token68: "abc")])
    }

    @Test("a scheme alone, with or without parameters after a comma")
    func bareScheme() {
        #expect(Self.parse("Negotiate, NTLM") == [Self.challenge("negotiate"), Self.challenge("ntlm")])
        #expect(Self.parse(#"Bearer, realm="api""#) == [Self.challenge("bearer", ["realm": "api"])])
    }

    @Test("empty list elements and surrounding whitespace are tolerated")
    func emptyElements() {
        let parsed = Self.parse(#" , ,Basic realm="x" ,,\#t, Digest nonce="n",,realm=r , "#, "", ",")
        #expect(parsed == [Self.challenge("basic", ["realm": "x"]), Self.challenge("digest", ["nonce": "n", "realm": "r"])])
    }

    @Test("schemes and parameter names are case-insensitive; values keep their case")
    func caseInsensitive() {
        #expect(Self.parse(#"BASIC REALM="Xy""#) == [Self.challenge("basic", ["realm": "Xy"])])
        #expect(Self.parse(#"DiGeSt Realm="r""#).first?.scheme == "digest")
    }

    @Test("whitespace around '=' (BWS)")
    func badWhitespace() {
        #expect(Self.parse(#"Basic realm = "x", charset= UTF-8"#) == [Self.challenge("basic", ["realm": "x", "charset": "UTF-8"])])
    }

    @Test("unquoted values run to the next comma or space, padding included")
    func unquotedValues() {
        #expect(Self.parse("Digest nonce=abc/def==, realm=r, algorithm=MD5-sess") == [
            Self.challenge("digest", ["nonce": "abc/def==", "realm": "r", "algorithm": "MD5-sess"]),
        ])
    }

    @Test("the first occurrence of a parameter wins")
    func duplicates() {
        #expect(Self.parse(#"Basic realm="first", realm="second""#) == [Self.challenge("basic", ["realm": "first"])])
    }

    @Test("malformed parts are skipped, the challenges around them kept", arguments: [
        (#"Basic realm="x", Custom abc def, Digest realm="r", nonce="n""#, ["basic", "custom", "digest"]),
        (#"Basic"x", Digest realm="r""#, ["digest"]),
        (#"=foo, "quoted", Basic realm="x""#, ["basic"]),
        (#"realm="orphan", Basic realm="x""#, ["basic"]),
        (#"Basic realm=, Digest realm="r""#, ["basic", "digest"]),
        (#"Basic realm="x", Digest realm="unterminated, nonce="n""#, ["basic", "digest"]),
        (#"Basic realm=a"b, Digest realm="r""#, ["basic", "digest"]),
        ("Basic ;;;, Digest realm=r", ["basic", "digest"]),
    ])
    func malformed(_ field: String, _ schemes: [String]) {
        #expect(Self.parse(field).map(\.scheme) == schemes)
    }

    @Test("a malformed parameter does not take the good ones with it")
    func malformedParameter() {
        let parsed = Self.parse(#"Digest realm="r", bad=, nonce="n", =x, qop="auth""#)
        #expect(parsed == [Self.challenge("digest", ["realm": "r", "nonce": "n", "qop": "auth"])])
        // An unterminated quoted-string ends the field: nothing after it is read.
        #expect(Self.parse(#"Digest realm="r", opaque="abc"#) == [Self.challenge("digest", ["realm": "r"])])
    }

    @Test("at most 32 challenges and 64 parameters each are read")
    func limits() {
        let many = Array(repeating: "Basic realm=\"x\"", count: 1000).joined(separator: ", ")
        #expect(Self.parse(many).count == HTTPAuthChallenge.maximumChallenges)
        #expect(HTTPAuthChallenge.parse(Array(repeating: "Bearer", count: 100)).count == HTTPAuthChallenge.maximumChallenges)
        let params = (0..<1000).map { "p\($0)=\($0)" }.joined(separator: ", ")
        let parsed = Self.parse("Custom " + params)
        #expect(parsed.first?.parameters.count == HTTPAuthChallenge.maximumParameters)
        #expect(parsed.first?.parameters["p0"] == "0")
    }

    @Test("large hostile fields end in one linear pass, without a crash")
    func hostile() {
        let megabyte = 1 << 20
        let inputs = [
            String(repeating: ",", count: megabyte),
            String(repeating: "\"", count: megabyte),
            String(repeating: "\\", count: megabyte),
            "Basic realm=\"" + String(repeating: "\\\"", count: megabyte / 2),
            String(repeating: "a=", count: megabyte / 2),
            String(repeating: "x ", count: megabyte / 2),
            String(repeating: "=", count: megabyte),
        ]
        for input in inputs {
            #expect(Self.parse(input).count <= HTTPAuthChallenge.maximumChallenges)
        }
    }

    @Test("every prefix of a complex field parses")
    func prefixes() {
        let field = #"Newauth realm="apps", type=1, title="Login to \"apps\"", Negotiate abc==, Digest realm="a, b", nonce=n"#
        let bytes = Array(field.utf8)
        for end in 0...bytes.count {
            let parsed = HTTPAuthChallenge.parse([String(decoding: bytes[..<end], as: UTF8.self)])
            // A cut-off parameter name reads as a scheme of its own: `…, nonce` is a challenge.
            #expect(parsed.count <= 4)
        }
        #expect(Self.parse(field).map(\.scheme) == ["newauth", "negotiate", "digest"])
    }

    @Test("non-ASCII bytes in quoted values survive as UTF-8")
    func nonASCII() {
        #expect(Self.parse("Basic realm=\"Zürich\"") == [Self.challenge("basic", ["realm": "Zürich"])])
    }
}

@Suite("Choosing a challenge")
struct ChooseChallengeTests {
    static let rfc7616 = HTTPAuthChallenge.parse([
        #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#,
        #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#,
    ])

    static func choose(_ fields: [String], _ schemes: HTTPAuthSchemeChoice = .strongest) throws(AuthenticationFailure) -> ChosenAuthChallenge {
        try HTTPAuthChallenge.choose(from: HTTPAuthChallenge.parse(fields), allowing: schemes)
    }

    static func digestAlgorithm(_ chosen: ChosenAuthChallenge) -> String? {
        if case .digest(let digest) = chosen { return digest.algorithm.name }
        return nil
    }

    @Test("Digest SHA-256 over MD5 whatever the order, Digest over Basic")
    func strongest() throws {
        let basic = #"Basic realm="b""#
        let md5 = #"Digest realm="r", nonce="n", qop="auth""#
        let sha256 = #"Digest realm="r", nonce="n", algorithm=SHA-256, qop="auth""#
        #expect(Self.digestAlgorithm(try Self.choose([basic, md5, sha256])) == "SHA-256")
        #expect(Self.digestAlgorithm(try Self.choose([sha256, md5, basic])) == "SHA-256")
        #expect(Self.digestAlgorithm(try Self.choose([basic, md5])) == "MD5")
        #expect(Self.digestAlgorithm(try Self.choose([#"Digest realm="r", nonce="n", algorithm=SHA-512-256"#, sha256])) == "SHA-512-256")
        let chosen = try HTTPAuthChallenge.choose(from: Self.rfc7616)
        #expect(Self.digestAlgorithm(chosen) == "SHA-256")
        #expect(chosen.authenticationMethod == .httpDigest)
        #expect(chosen.realm == "http-auth@example.org")
    }

    @Test("among equals the first one sent wins")
    func firstAmongEquals() throws {
        let chosen = try Self.choose([#"Digest realm="one", nonce="n""#, #"Digest realm="two", nonce="n""#])
        #expect(chosen.realm == "one")
        #expect(try Self.choose([#"Basic realm="one""#, #"Basic realm="two""#]).realm == "one")
    }

    @Test("--basic and --digest restrict the schemes")
    func restricted() throws {
        let fields = [#"Digest realm="r", nonce="n""#, #"Basic realm="b""#]
        #expect(try Self.choose(fields, .basicOnly) == .basic(HTTPAuthChallenge(scheme: "basic", parameters: ["realm": "b"])))
        #expect(try Self.choose(fields, .basicOnly).authenticationMethod == .httpBasic)
        #expect(Self.digestAlgorithm(try Self.choose(fields, .digestOnly)) == "MD5")
        #expect(throws: AuthenticationFailure.noSupportedScheme(offered: ["basic"])) {
            try Self.choose([#"Basic realm="b""#], .digestOnly)
        }
        #expect(throws: AuthenticationFailure.noSupportedScheme(offered: ["digest"])) {
            try Self.choose([#"Digest realm="r", nonce="n""#], .basicOnly)
        }
    }

    @Test("an unanswerable Digest falls back to Basic, or says why")
    func unanswerableDigest() throws {
        let sha3 = #"Digest realm="r", nonce="n", algorithm=SHA3-256"#
        #expect(try Self.choose([sha3, #"Basic realm="b""#]).authenticationMethod == .httpBasic)
        #expect(throws: AuthenticationFailure.unknownAlgorithm("SHA3-256")) { try Self.choose([sha3]) }
        #expect(throws: AuthenticationFailure.unsupportedQop(["auth-int"])) {
            try Self.choose([#"Digest realm="r", nonce="n", qop="auth-int""#, sha3])
        }
    }

    @Test("no supported scheme at all")
    func noneSupported() {
        #expect(throws: AuthenticationFailure.noSupportedScheme(offered: ["bearer", "negotiate"])) {
            try Self.choose(["Bearer", "Negotiate abc"])
        }
        #expect(throws: AuthenticationFailure.noSupportedScheme(offered: [])) { try Self.choose([]) }
        #expect(AuthenticationFailure.noSupportedScheme(offered: ["bearer"]).description.contains("bearer"))
    }
}
