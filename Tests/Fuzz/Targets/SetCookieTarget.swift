import FerrySession
import FoundationEssentials

extension FuzzTarget {
    /// A `Set-Cookie` value received from a URL the input's first byte picks: the parser either
    /// makes a cookie or refuses with a reason; a jar stores what it made and is asked for it.
    static let setCookie = FuzzTarget(
        name: "set-cookie",
        summary: "Set-Cookie field values (RFC 6265: attributes, dates, Domain against the public suffix list, prefixes) and the jar"
    ) { input in
        guard let first = input.first else { return }
        let urls = ["http://example.com/a/b", "https://www.example.co.uk/", "http://127.0.0.1:8080/x", "https://[::1]/", "http://a.b.c.example.org/deep/path?q"]
        guard let url = URL(string: urls[Int(first) % urls.count]) else { return }
        let field = String(decoding: input.dropFirst(), as: UTF8.self)
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        if case .success(let cookie) = SetCookieParser.parse(field, url: url, now: now) {
            let storage = CookieStorage()
            storage.setCookie(cookie)
            _ = storage.cookies(for: url)
        }
    }
}
