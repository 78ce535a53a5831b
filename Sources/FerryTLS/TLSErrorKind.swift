/// What went wrong, for FerryTLS's errors: a stable name for programs and a phrase for
/// people. An open set: each `Domain` declares its kinds as static members in an extension.
///
/// The shape of FerryWire's `ErrorKind<Domain>` (kinds compare by name), declared here because
/// FerryTLS sits below FerryWire. ``CertificateError/Kind``, ``TLSError/Kind``,
/// ``TrustFailure/Reason`` and ``ServerTrustError/Kind`` are this type.
public struct TLSErrorKind<Domain>: Hashable, Sendable, CustomStringConvertible {
    /// A short stable name, such as `expired`, for programs and logs.
    public let name: String
    /// A phrase for people, such as "certificate expired".
    public let text: String

    /// Creates a kind from its stable name and a phrase for people (the name if omitted).
    ///
    /// - Parameters:
    ///   - name: the stable name, its identity.
    ///   - text: the phrase for people.
    public init(_ name: String, text: String? = nil) {
        self.name = name
        self.text = text ?? name
    }

    /// Kinds are the same when their names are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }

    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The stable name.
    public var description: String { name }
}
