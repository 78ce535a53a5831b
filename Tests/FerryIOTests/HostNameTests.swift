import Testing

@testable import FerryIO

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
