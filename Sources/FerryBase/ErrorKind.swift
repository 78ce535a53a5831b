/// What went wrong in an error of `Domain`: a stable name for programs and a phrase for people.
///
/// An open set, like `URLError.Code`: each error type lists its kinds as static members (for
/// example `HTTPParseError.Kind.invalidChunkSize`, `TLSError.Kind.handshakeFailed`), new ones
/// can be added without breaking callers, and kinds compare by name. FerryWire's and
/// FerryTLS's errors share it, which is why it lives in FerryBase, below both.
public struct ErrorKind<Domain>: Hashable, Sendable, CustomStringConvertible {
    /// A short stable name, such as `invalidChunkSize`, for programs and logs.
    public let name: String
    /// A phrase for people, such as "invalid chunk size".
    public let text: String

    /// Creates a kind from its stable name and a phrase for people (the name if omitted).
    public init(_ name: String, text: String? = nil) {
        self.name = name
        self.text = text ?? name
    }

    /// Kinds are the same when their names are.
    public static func == (lhs: ErrorKind, rhs: ErrorKind) -> Bool { lhs.name == rhs.name }

    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The stable name.
    public var description: String { name }
}
