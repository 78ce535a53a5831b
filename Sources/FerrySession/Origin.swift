import FerryBase
import FoundationEssentials

/// A URL's origin (RFC 6454): scheme, host and port, lower case, the default port filled in.
/// What credentials are kept to: redirects drop them across origins, an accepted Basic answer
/// goes up front to its own origin only, a protection space names one.
struct Origin: Hashable, Sendable {
    /// `http` or `https`, lower case.
    var scheme: String
    /// The host, lower case, without IPv6 brackets.
    var host: String
    /// The port, 80 or 443 when the URL names none.
    var port: Int

    /// The origin of `url`.
    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host(percentEncoded: false).map { String(HostName.unbracketed($0)).lowercased() } ?? ""
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }
}
