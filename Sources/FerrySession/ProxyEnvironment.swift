import FerryBase
import FerryIO
import FoundationEssentials

/// Which proxy the environment names for a URL, read as curl reads it (issue 19's "from the
/// environment"): `http_proxy` for http (lower case only: `HTTP_PROXY` can be set by a CGI
/// request's `Proxy:` header, the "httpoxy" flaw), `https_proxy` or `HTTPS_PROXY` for https,
/// else `all_proxy` or `ALL_PROXY`; lower case first. `no_proxy` or `NO_PROXY` lists the
/// hosts reached directly (``NoProxyList``).
///
/// A value without a scheme is an http proxy (`proxy.example:3128`, as curl takes it). An
/// empty value counts as unset.
struct ProxyEnvironment: Sendable, Equatable {
    /// The proxy for http URLs, if any (a value that is not a URL fails the requests it would
    /// carry, rather than letting them go direct).
    var http: Result<URL, ProxyURLError>?
    /// The proxy for https URLs, if any.
    var https: Result<URL, ProxyURLError>?
    /// The hosts reached without a proxy.
    var noProxy: NoProxyList

    /// The proxies `environment` names.
    init(_ environment: [String: String]) {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        let all = value("all_proxy", "ALL_PROXY").flatMap(Self.proxyURL)
        http = value("http_proxy").flatMap(Self.proxyURL) ?? all
        https = value("https_proxy", "HTTPS_PROXY").flatMap(Self.proxyURL) ?? all
        noProxy = NoProxyList(value("no_proxy", "NO_PROXY") ?? "")
    }

    /// `text` as a proxy URL: with a scheme, or `http://` before it; nil when blank.
    static func proxyURL(_ text: String) -> Result<URL, ProxyURLError>? {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { return nil }
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let url = URL(string: withScheme), url.host(percentEncoded: false)?.isEmpty == false else {
            // The value is not repeated: it may hold a password.
            return .failure(ProxyURLError(host: "named by the environment", reason: .malformed))
        }
        return .success(url)
    }
}

/// A `no_proxy` list, matched as curl matches it: `*` alone matches every host; otherwise
/// entries separated by commas (blanks around them are skipped; as in curl, a blank not
/// followed by a comma ends the list). A name matches itself and its subdomains, case
/// insensitively, with leading and trailing dots ignored (`.example.com` and `example.com`
/// both match `www.example.com`, never `notexample.com`). An IP literal host matches entries
/// that are addresses or CIDR ranges of its family (`10.0.0.0/8`, `fd00::/8`; no prefix means
/// the address itself). The URL's port plays no part; an entry with a port matches nothing,
/// as in curl.
package struct NoProxyList: Sendable, Equatable {
    private let matchesAll: Bool
    private let entries: [String]

    /// The list in `text`.
    package init(_ text: String) {
        matchesAll = text == "*"
        var entries: [String] = []
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            let token = rest.prefix { $0 != " " && $0 != "\t" && $0 != "," }
            if !token.isEmpty { entries.append(String(token)) }
            rest = rest.dropFirst(token.count).drop { $0 == " " || $0 == "\t" }
            guard rest.first == "," else { break }
            rest = rest.drop { $0 == "," }
        }
        self.entries = entries
    }

    /// Whether `host` (a name, or an IP literal, IPv6 with or without brackets) is reached
    /// without a proxy.
    package func matches(host: String) -> Bool {
        if matchesAll { return true }
        guard !host.isEmpty else { return false }
        let bare = String(HostName.unbracketed(host))
        if let address = IPLiteral(bare) {
            return entries.contains { entry in
                let parts = entry.split(separator: "/", maxSplits: 1)
                guard let network = IPLiteral(String(parts[0])), network.bytes.count == address.bytes.count else { return false }
                let width = address.bytes.count * 8
                let bits = parts.count == 2 ? Int(parts[1]) : width
                guard let bits, (0...width).contains(bits) else { return false }
                return address.sharesPrefix(with: network, bits: bits)
            }
        }
        let name = Self.trimmingDots(bare.lowercased())
        return entries.contains { entry in
            let pattern = Self.trimmingDots(entry.lowercased())
            guard !pattern.isEmpty else { return false }
            return name == pattern || name.hasSuffix("." + pattern)
        }
    }

    private static func trimmingDots(_ text: String) -> String {
        var text = Substring(text)
        if text.last == "." { text = text.dropLast() }
        if text.first == "." { text = text.dropFirst() }
        return String(text)
    }
}

/// An IPv4 or IPv6 address in bytes, from its text (as ``SocketAddress`` parses it).
private struct IPLiteral {
    let bytes: [UInt8]

    init?(_ text: String) {
        guard let address = SocketAddress(ipAddress: text, port: 0) else { return nil }
        bytes = address.addressBytes
    }

    /// Whether the first `bits` bits of both addresses are equal.
    func sharesPrefix(with other: IPLiteral, bits: Int) -> Bool {
        let whole = bits / 8, rest = bits % 8
        guard bytes.prefix(whole) == other.bytes.prefix(whole) else { return false }
        guard rest > 0 else { return true }
        let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - rest))
        return bytes[whole] & mask == other.bytes[whole] & mask
    }
}

private extension String {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
