import FerrySession
import FoundationEssentials

/// Any response serializer producing `Value`, behind one type: what a manager stores when
/// the serializer is chosen at run time, or a serializer written as a closure.
///
/// ```swift
/// let users = AnyResponseSerializer(DecodableResponseSerializer<[User]>())
/// let names = users.map { $0.map(\.name) }   // AnyResponseSerializer<[String]>
/// ```
public struct AnyResponseSerializer<Value: Sendable>: ResponseSerializing {
    private let body: @Sendable (NetworkResponse, Data?) throws(NetworkError) -> Value

    /// `serializer` behind the erased type.
    public init<Serializer: ResponseSerializing>(_ serializer: Serializer) where Serializer.Value == Value {
        body = { response, data throws(NetworkError) in try serializer.serialize(response, data: data) }
    }

    /// A serializer that runs `serialize`.
    public init(_ serialize: @escaping @Sendable (NetworkResponse, Data?) throws(NetworkError) -> Value) {
        body = serialize
    }

    /// What the wrapped serializer makes of `data` and `response`.
    /// - Throws: What the wrapped serializer throws.
    public func serialize(_ response: NetworkResponse, data: Data?) throws(NetworkError) -> Value {
        try body(response, data)
    }

    /// A serializer whose value is `transform` applied to this one's.
    public func map<NewValue: Sendable>(_ transform: @escaping @Sendable (Value) -> NewValue) -> AnyResponseSerializer<NewValue> {
        let body = body
        return AnyResponseSerializer<NewValue> { response, data throws(NetworkError) in transform(try body(response, data)) }
    }
}
