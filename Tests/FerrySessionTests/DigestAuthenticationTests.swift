// Digest (RFC 7616) and Basic (RFC 7617) answers, pure: the RFCs' own examples byte for byte,
// the -sess, legacy and userhash variants, quoting, nc, and every refusal.
import Testing
import TestSupport

@testable import FerrySession
@testable import FerryTLS

@Suite("Digest authentication")
struct DigestAuthenticationTests {
    static let nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
    static let opaque = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
    static let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"

    /// RFC 7616 §3.9.1's challenge, with the algorithm given.
    static func rfcChallenge(_ algorithm: String) throws -> DigestChallenge {
        let field = #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=\#(algorithm), nonce="\#(nonce)", opaque="\#(opaque)""#
        return try DigestChallenge(#require(HTTPAuthChallenge.parse([field]).first))
    }

    static func digest(_ field: String) throws -> DigestChallenge {
        try DigestChallenge(#require(HTTPAuthChallenge.parse([field]).first))
    }

    static func rfcAnswer(_ challenge: DigestChallenge) throws -> String {
        try challenge.authorization(user: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html",
                                    nonceCount: 1, cnonce: cnonce)
    }

    /// The value of parameter `name` in an Authorization value (quotes removed).
    static func parameter(_ name: String, in value: String) -> String? {
        HTTPAuthChallenge.parse([value]).first?.parameters[name]
    }

    @Test("RFC 7616 §3.9.1 with MD5: the exact Authorization value")
    func rfcMD5() throws {
        let expected = #"Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=MD5, nonce="\#(Self.nonce)", nc=00000001, cnonce="\#(Self.cnonce)", qop=auth, response="8ca523f5e9506fed4657c9700eebdbec", opaque="\#(Self.opaque)""#
        #expect(try Self.rfcAnswer(Self.rfcChallenge("MD5")) == expected)
    }

    @Test("RFC 7616 §3.9.1 with SHA-256: the exact Authorization value")
    func rfcSHA256() throws {
        let expected = #"Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=SHA-256, nonce="\#(Self.nonce)", nc=00000001, cnonce="\#(Self.cnonce)", qop=auth, response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", opaque="\#(Self.opaque)""#
        #expect(try Self.rfcAnswer(Self.rfcChallenge("SHA-256")) == expected)
    }

    @Test("RFC 7616 §3.9.2 (SHA-512-256, userhash, as corrected by erratum 4897)")
    func rfcUserhash() throws {
        let challenge = try Self.digest(#"Digest realm="api@example.org", qop="auth", algorithm=SHA-512-256, nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", opaque="HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS", charset=UTF-8, userhash=true"#)
        #expect(challenge.userhash)
        #expect(challenge.charset == "UTF-8")
        let value = try challenge.authorization(user: "J\u{E4}s\u{F8}n Doe", password: "Secret, or not?", method: "GET", uri: "/doe.json",
                                                nonceCount: 1, cnonce: "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v")
        #expect(Self.parameter("username", in: value) == "793263caabb707a56211940d90411ea4a575adeccb7e360aeb624ed06ece9b0b")
        #expect(Self.parameter("response", in: value) == "3798d4131c277846293534c3edc11bd8a5e4cdcbff78b05db9d95eeb1cec68a5")
        #expect(value.contains("algorithm=SHA-512-256, "))
        #expect(value.hasSuffix(", userhash=true"))
        #expect(!value.contains("username*"))

        // Without userhash the same user goes in username* (RFC 8187), and the response is unchanged.
        var plain = challenge
        plain.userhash = false
        let star = try plain.authorization(user: "J\u{E4}s\u{F8}n Doe", password: "Secret, or not?", method: "GET", uri: "/doe.json",
                                           nonceCount: 1, cnonce: "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v")
        #expect(star.hasPrefix("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, realm=\"api@example.org\""))
        #expect(Self.parameter("response", in: star) == "3798d4131c277846293534c3edc11bd8a5e4cdcbff78b05db9d95eeb1cec68a5")
        #expect(!star.contains("userhash"))
    }

    @Test("RFC 2617 §3.5: MD5 with qop=auth, no algorithm named and none sent back")
    func rfc2617() throws {
        let challenge = try Self.digest(#"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#)
        #expect(challenge.algorithm == DigestAlgorithm(hash: .md5, isSession: false))
        #expect(!challenge.namesAlgorithm)
        let value = try challenge.authorization(user: "Mufasa", password: "Circle Of Life", method: "GET", uri: "/dir/index.html",
                                                nonceCount: 1, cnonce: "0a4f113b")
        #expect(value == #"Digest username="Mufasa", realm="testrealm@host.com", uri="/dir/index.html", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", nc=00000001, cnonce="0a4f113b", qop=auth, response="6629fae49393a05397450978507c4ef1", opaque="5ccc069c403ebaf9f0171e9517f40e41""#)
    }

    @Test("RFC 2069 (no qop): response = H(HA1:nonce:HA2), no nc, cnonce or qop")
    func legacy() throws {
        let challenge = try Self.digest(#"Digest realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093""#)
        #expect(challenge.qop == nil)
        let value = try challenge.authorization(user: "Mufasa", password: "CircleOfLife", method: "GET", uri: "/dir/index.html",
                                                nonceCount: 7, cnonce: "unused")
        #expect(value == #"Digest username="Mufasa", realm="testrealm@host.com", uri="/dir/index.html", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", response="1949323746fe6a43ef61f9606e7febea""#)
        // An empty qop list offers nothing: the legacy answer too.
        #expect(try Self.digest(#"Digest realm="r", nonce="n", qop="""#).qop == nil)
    }

    @Test("-sess variants hash the nonces into HA1", arguments: [
        ("MD5-sess", "e783283f46242139c486a698fec7211d"),
        ("SHA-256-sess", "2fd51b3a77ad75bad6afad6003e818d767133c46d9e2749e7f5232ae1ea3efd7"),
    ])
    func session(_ algorithm: String, _ response: String) throws {
        let challenge = try Self.rfcChallenge(algorithm)
        #expect(challenge.algorithm.isSession)
        let value = try Self.rfcAnswer(challenge)
        #expect(Self.parameter("response", in: value) == response)
        #expect(value.contains("algorithm=\(algorithm), "))
    }

    @Test("algorithm names are case-insensitive and sent back in their registered spelling")
    func algorithmNames() throws {
        #expect(try Self.rfcChallenge("sha-256-SESS").algorithm.name == "SHA-256-sess")
        #expect(try Self.rfcChallenge("md5").algorithm.name == "MD5")
        #expect(try Self.rfcChallenge("\"SHA-256\"").algorithm.name == "SHA-256")
        #expect(DigestAlgorithm(name: "SHA-512-256-sess") == DigestAlgorithm(hash: .sha512_256, isSession: true))
        #expect(DigestAlgorithm(name: "-sess") == nil)
        #expect(DigestAlgorithm(name: "SHA-1") == nil)
    }

    @Test("stale, userhash, charset, domain and opaque are read")
    func flags() throws {
        let stale = try Self.digest(#"Digest realm="r", nonce="n", stale=TRUE, domain="/a https://b.example/c", opaque="o""#)
        #expect(stale.isStale)
        #expect(stale.domain == ["/a", "https://b.example/c"])
        #expect(stale.opaque == "o")
        #expect(!(try Self.digest(#"Digest realm="r", nonce="n", stale=false"#).isStale))
        let plain = try Self.digest(#"Digest realm="r", nonce="n""#)
        #expect(!plain.isStale && !plain.userhash && plain.charset == nil && plain.opaque == nil && plain.domain.isEmpty)
        #expect(!(try Self.rfcAnswer(plain)).contains("opaque"))
    }

    @Test("nc is eight lowercase hex digits", arguments: [
        (UInt32(1), "00000001"), (255, "000000ff"), (0x1234_abcd, "1234abcd"), (.max, "ffffffff"),
    ])
    func nonceCount(_ count: UInt32, _ text: String) throws {
        #expect(DigestChallenge.nonceCountText(count) == text)
        let value = try Self.rfcChallenge("MD5").authorization(user: "u", password: "p", method: "GET", uri: "/", nonceCount: count,
                                                                cnonce: "c")
        #expect(value.contains(", nc=\(text), "))
    }

    @Test("quoted values escape quotes and backslashes; the hash uses them unescaped")
    func quoting() throws {
        let challenge = try Self.digest(#"Digest realm="a \"b\" \\ c", nonce="n", qop=auth"#)
        #expect(challenge.realm == #"a "b" \ c"#)
        let value = try challenge.authorization(user: #"x"y"#, password: "p", method: "GET", uri: "/", nonceCount: 1, cnonce: "c")
        #expect(value.hasPrefix(#"Digest username="x\"y", realm="a \"b\" \\ c", uri="/", nonce="n""#))
        #expect(Self.parameter("username", in: value) == #"x"y"#)
        #expect(Self.parameter("realm", in: value) == challenge.realm)
        let ha1 = try #require(MessageDigest.hex(.md5, of: #"x"y:a "b" \ c:p"#))
        let ha2 = try #require(MessageDigest.hex(.md5, of: "GET:/"))
        #expect(Self.parameter("response", in: value) == MessageDigest.hex(.md5, of: "\(ha1):n:00000001:c:auth:\(ha2)"))
    }

    @Test("a user name with control characters goes in username*")
    func controlInUserName() throws {
        let value = try Self.rfcChallenge("MD5").authorization(user: "a\tb", password: "p", method: "GET", uri: "/", nonceCount: 1, cnonce: "c")
        #expect(value.hasPrefix("Digest username*=UTF-8''a%09b, "))
        #expect(DigestChallenge.extendedValue("a-b.c!~ %/") == "UTF-8''a-b.c!~%20%25%2F")
    }

    @Test("client nonces: 32 hex digits from the injected generator")
    func clientNonce() {
        var generator = SplitMix64(state: 42)
        var same = SplitMix64(state: 42)
        let first = DigestChallenge.makeClientNonce(using: &generator)
        #expect(first.count == 32)
        #expect(first.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        #expect(first == DigestChallenge.makeClientNonce(using: &same))
        #expect(first != DigestChallenge.makeClientNonce(using: &generator))
        #expect(DigestChallenge.makeClientNonce() != DigestChallenge.makeClientNonce())
    }

    @Test("refused challenges name their reason", arguments: [
        (#"Digest realm="r", nonce="n", algorithm=SHA3-256"#, AuthenticationFailure.unknownAlgorithm("SHA3-256")),
        (#"Digest realm="r", nonce="n", qop="auth-int""#, .unsupportedQop(["auth-int"])),
        (#"Digest realm="r", nonce="n", qop="auth-int, foo""#, .unsupportedQop(["auth-int", "foo"])),
        (#"Digest realm="r""#, .missingParameter("nonce")),
        (#"Digest nonce="n""#, .missingParameter("realm")),
        (#"Basic realm="r""#, .notDigest(scheme: "basic")),
    ])
    func refused(_ field: String, _ failure: AuthenticationFailure) throws {
        let challenge = try #require(HTTPAuthChallenge.parse([field]).first)
        #expect(throws: failure) { try DigestChallenge(challenge) }
    }

    @Test("refusal sentences name what was offered")
    func sentences() {
        #expect(AuthenticationFailure.unknownAlgorithm("SHA3-256").description == #"Digest challenge: unknown algorithm "SHA3-256""#)
        #expect(AuthenticationFailure.unsupportedQop(["auth-int"]).description.contains("only qop=auth-int offered (refused"))
        #expect(AuthenticationFailure.missingParameter("nonce").description == "Digest challenge without nonce")
    }

    @Test("answers that cannot be computed or sent are refused")
    func refusedAnswers() throws {
        let sessionWithoutQop = try Self.digest(#"Digest realm="r", nonce="n", algorithm=MD5-sess"#)
        #expect(throws: AuthenticationFailure.sessionAlgorithmWithoutQop("MD5-sess")) {
            try sessionWithoutQop.authorization(user: "u", password: "p", method: "GET", uri: "/", nonceCount: 1, cnonce: "c")
        }
        let challenge = try Self.rfcChallenge("MD5")
        #expect(throws: AuthenticationFailure.invalidCharacter("method")) {
            try challenge.authorization(user: "u", password: "p", method: "G T", uri: "/", nonceCount: 1, cnonce: "c")
        }
        #expect(throws: AuthenticationFailure.invalidCharacter("uri")) {
            try challenge.authorization(user: "u", password: "p", method: "GET", uri: "/a\r\nX: y", nonceCount: 1, cnonce: "c")
        }
        var handMade = challenge
        handMade.opaque = "a\nb"
        #expect(throws: AuthenticationFailure.invalidCharacter("Digest challenge")) {
            try handMade.authorization(user: "u", password: "p", method: "GET", uri: "/", nonceCount: 1, cnonce: "c")
        }
    }
}

@Suite("Basic authentication")
struct BasicAuthenticationTests {
    @Test("RFC 7617 §2's example")
    func aladdin() throws {
        #expect(try BasicAuthentication.authorization(user: "Aladdin", password: "open sesame") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test("RFC 7617 §2.1's UTF-8 example, and other non-ASCII text")
    func utf8() throws {
        #expect(try BasicAuthentication.authorization(user: "test", password: "123\u{A3}") == "Basic dGVzdDoxMjPCow==")
        #expect(try BasicAuthentication.authorization(user: "J\u{E4}s\u{F8}n", password: "\u{1F511}") == "Basic SsOkc8O4bjrwn5SR")
    }

    @Test("colons may be in the password, and either part may be empty")
    func colons() throws {
        #expect(try BasicAuthentication.authorization(user: "u", password: "a:b") == "Basic dTphOmI=")
        #expect(try BasicAuthentication.authorization(user: "", password: "") == "Basic Og==")
    }

    @Test("a colon in the user name, or a control character, is refused")
    func refused() {
        #expect(throws: AuthenticationFailure.colonInUserName) { try BasicAuthentication.authorization(user: "a:b", password: "p") }
        #expect(throws: AuthenticationFailure.invalidCharacter("Basic user name")) {
            try BasicAuthentication.authorization(user: "a\nb", password: "p")
        }
        #expect(throws: AuthenticationFailure.invalidCharacter("Basic password")) {
            try BasicAuthentication.authorization(user: "a", password: "p\u{7F}")
        }
        #expect(throws: AuthenticationFailure.invalidCharacter("Basic password")) {
            try BasicAuthentication.authorization(user: "a", password: "p\u{85}")
        }
    }
}
