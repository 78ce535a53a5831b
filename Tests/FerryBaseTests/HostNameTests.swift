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
