/// Host spellings, in one place for every layer that sees hosts: a URL writes an IPv6 literal in
/// brackets (`[::1]`, RFC 3986 §3.2.2); sockets, pool keys, SNI and trust checks want it bare.
public enum HostName {
    /// `host` without the brackets of an IPv6 literal (`[::1]` → `::1`); anything else as it is.
    /// Inlinable and not generic: it runs on every request.
    @inlinable
    public static func unbracketed(_ host: String) -> Substring {
        let utf8 = host.utf8
        guard utf8.count >= 2, utf8.first == UInt8(ascii: "["), utf8.last == UInt8(ascii: "]") else { return host[...] }
        return host.dropFirst().dropLast()
    }

    /// `host`, and `:port` when there is one, as an authority or a `Host` field writes them:
    /// an IPv6 literal in brackets (`[::1]:8080`, RFC 3986 §3.2.2), a bracketed one as it is.
    @inlinable
    public static func authority(_ host: String, port: Int?) -> String {
        // Bytes, not `String.contains(_:)` and interpolation: this runs for every request.
        let utf8 = host.utf8
        var text = utf8.contains(UInt8(ascii: ":")) && utf8.first != UInt8(ascii: "[") ? "[" + host + "]" : host
        guard let port else { return text }
        text += ":"
        text += String(port)
        return text
    }
}
