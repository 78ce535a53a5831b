import Ferry
import FoundationEssentials

/// curl's automatic referer, `-e '…;auto'` with `-L`: the request a redirect leads to names the
/// page that redirected as its `Referer`.
///
/// As curl, the page's user information and fragment are left out (RFC 9110 §10.1.3). Unlike
/// curl, which names the page even then, an https page that leads to plain http gives no
/// `Referer` at all: the RFC's "MUST NOT" for a user agent, since the field would carry a
/// protected page's address over an unprotected connection.
enum AutoReferer {
    /// `request` as it goes out after `response`'s redirect: its `Referer` replaced by the
    /// redirecting page, or removed.
    static func request(_ request: NetworkRequest, redirectedBy response: NetworkResponse) -> NetworkRequest {
        var next = request
        do {
            try next.setValue(referer(leaving: response.url, for: request.url), forHTTPHeaderField: "Referer")
        } catch {
            // Unreachable for a URL's text (no line break or control byte): none rather than
            // the page before's.
            try? next.setValue(nil, forHTTPHeaderField: "Referer")
        }
        return next
    }

    /// The `Referer` a request for `target` gets when `page` redirected to it, or nil for none.
    static func referer(leaving page: URL, for target: URL) -> String? {
        if page.scheme?.lowercased() == "https" && target.scheme?.lowercased() != "https" { return nil }
        guard var components = URLComponents(url: page, resolvingAgainstBaseURL: true) else { return nil }
        components.user = nil
        components.password = nil
        components.fragment = nil
        return components.string
    }
}
