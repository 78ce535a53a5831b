/// One entry of a certificate's subject alternative name extension (RFC 5280 §4.2.1.6).
///
/// Only the forms hostname verification uses are kept; other forms (e-mail, URI, directory
/// names) are skipped when a certificate is parsed.
public enum SubjectAlternativeName: Sendable, Hashable, CustomStringConvertible {
    /// A DNS name as written in the certificate, such as `localhost` or `*.example.com`.
    case dnsName(String)
    /// An IP address in its usual text form: `127.0.0.1`, or `::1` for IPv6 (RFC 5952).
    case ipAddress(String)

    /// `DNS:localhost` or `IP:127.0.0.1`, as `openssl x509 -text` prints them.
    public var description: String {
        switch self {
        case .dnsName(let name): "DNS:\(name)"
        case .ipAddress(let address): "IP:\(address)"
        }
    }
}
