import Testing

import FerryBase

@Suite("Host names")
struct HostNameTests {
    @Test("brackets of an IPv6 literal go, nothing else changes", arguments: [
        ("[::1]", "::1"), ("[fe80::1%25eth0]", "fe80::1%25eth0"), ("::1", "::1"), ("example.com", "example.com"),
        ("[", "["), ("[]", ""), ("[example.com", "[example.com"), ("", ""),
    ])
    func unbracketed(host: String, bare: String) {
        #expect(String(HostName.unbracketed(host)) == bare)
    }

    @Test("an authority brackets a bare IPv6 literal and adds the port only when there is one", arguments: [
        ("example.com", nil, "example.com"), ("example.com", 8080, "example.com:8080"),
        ("127.0.0.1", 80, "127.0.0.1:80"), ("::1", nil, "[::1]"), ("::1", 443, "[::1]:443"),
        ("[::1]", 443, "[::1]:443"), ("fe80::1%25eth0", 0, "[fe80::1%25eth0]:0"), ("", nil, ""),
    ] as [(String, Int?, String)])
    func authority(host: String, port: Int?, authority: String) {
        #expect(HostName.authority(host, port: port) == authority)
    }
}

@Suite("Error kinds")
struct ErrorKindTests {
    enum Domain {}
    enum Other {}

    @Test func kindsCompareByNameAndKeepTheirPhrase() {
        let kind = ErrorKind<Domain>("tooLong", text: "too long")
        #expect(kind == ErrorKind<Domain>("tooLong"))
        #expect(kind != ErrorKind<Domain>("tooShort", text: "too long"))
        #expect(kind.text == "too long")
        #expect(kind.description == "tooLong")
        #expect(ErrorKind<Other>("x").text == "x", "the phrase defaults to the name")
        #expect(Set([kind, ErrorKind<Domain>("tooLong", text: "other words")]).count == 1)
    }
}
