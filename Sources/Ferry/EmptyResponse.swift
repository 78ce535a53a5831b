/// A type a ``DecodableResponseSerializer`` may hand back for a response without a body
/// (`204 No Content`, a lone space), instead of failing: Alamofire's `EmptyResponse`.
/// ``EmptyResponse`` and `Optional` (nil) conform; conform a type of yours to give it a
/// default of its own.
public protocol EmptyResponseDecodable: Decodable {
    /// The value that stands for an empty body.
    static var emptyValue: Self { get }
}

/// The value of a response whose body does not matter (Alamofire's `Empty`):
/// `DecodableResponseSerializer<EmptyResponse>` accepts an empty body and any JSON body.
public struct EmptyResponse: EmptyResponseDecodable, Codable, Sendable, Hashable {
    /// The empty value.
    public static var emptyValue: EmptyResponse { EmptyResponse() }

    /// The empty value.
    public init() {}

    /// Accepts any JSON value and ignores it.
    public init(from decoder: any Decoder) throws {}

    /// Encodes an empty object (`{}`).
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: NoKeys.self)
    }

    private enum NoKeys: CodingKey {}
}

extension Optional: EmptyResponseDecodable where Wrapped: Decodable {
    /// nil: a `DecodableResponseSerializer<User?>` gives nil for an empty body.
    public static var emptyValue: Wrapped? { nil }
}
