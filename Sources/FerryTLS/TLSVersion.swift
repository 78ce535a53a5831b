import COpenSSL

/// A TLS protocol version Ferry can negotiate. Older versions (SSL 3, TLS 1.0 and 1.1) are
/// not offered at all (RFC 8996 deprecates them).
public enum TLSVersion: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// TLS 1.2 (RFC 5246): the default minimum.
    case v1_2 = 0x0303
    /// TLS 1.3 (RFC 8446).
    case v1_3 = 0x0304

    /// Versions compare by age: `.v1_2 < .v1_3`.
    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `TLSv1.2`, `TLSv1.3`: OpenSSL's and curl's spelling.
    public var description: String {
        switch self {
        case .v1_2: "TLSv1.2"
        case .v1_3: "TLSv1.3"
        }
    }

    /// OpenSSL's protocol version constant.
    var openSSLValue: Int32 {
        switch self {
        case .v1_2: TLS1_2_VERSION
        case .v1_3: TLS1_3_VERSION
        }
    }
}
