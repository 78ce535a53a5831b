import FerrySession
import FoundationEssentials

extension FuzzTarget {
    /// A `Location` value resolved against the request's URL (which the input's first byte
    /// picks) and judged as each redirect status would be: followed to an http(s) URL with a
    /// host (never https to http when that is not allowed, never with a credential to another
    /// origin), or refused with a reason.
    static let redirectLocation = FuzzTarget(
        name: "redirect-location",
        summary: "Location values resolved against request URLs (RFC 3986 references, schemes, hosts, IPv6 literals, percent-encoding) and the redirect rules"
    ) { input in
        guard let first = input.first else { return }
        let bases = ["https://example.com/a/b?c=d", "http://127.0.0.1:8080/", "https://[::1]:8443/x/", "http://user:pw@host.example/p;q"]
        guard let url = URL(string: bases[Int(first) % bases.count]) else { return }
        let broken = FuzzEntryPoints.redirect(location: String(decoding: input.dropFirst(), as: UTF8.self), from: url)
        FuzzTarget.check(broken == nil, broken ?? "")
    }
}
