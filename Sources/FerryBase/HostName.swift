/// Host spellings, in one place for every layer that sees hosts: a URL writes an IPv6 literal in
/// brackets (`[::1]`, RFC 3986 §3.2.2); sockets, pool keys, SNI and trust checks want it bare.
public enum HostName {
    /// `host` without the brackets of an IPv6 literal (`[::1]` → `::1`); anything else as it is.
    public static func unbracketed<S: StringProtocol>(_ host: S) -> S.SubSequence {
        host.hasPrefix("[") && host.hasSuffix("]") ? host.dropFirst().dropLast() : host[...]
    }
}
