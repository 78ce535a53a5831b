import FerrySession
import FoundationEssentials

/// AFNetworking's `AFCompoundResponseSerializer`: tries its serializers in order and hands
/// back the first answer, else what the plain ``HTTPResponseSerializer`` makes of the response
/// (its body as `Data`, or its refusal).
///
/// A serializer answers when it neither throws nor gives nil (a JSON serializer's nil for an
/// empty body passes the turn on, as AFNetworking's nil response object does). The
/// serializers make values of different types, so the answer is type-erased: a ``Value``
/// holding the `Sendable` object and which serializer made it, read back with a cast or its
/// ``Value/json`` and ``Value/data`` shortcuts:
///
/// ```swift
/// let serializer = CompoundResponseSerializer([DecodableResponseSerializer<User>(), JSONResponseSerializer()])
/// let answer = try serializer.serialize(response, data: body)
/// if let user = answer.object(as: User.self) { … } else if let json = answer.json { … }
/// ```
///
/// An enum of the known kinds was the other choice; it cannot hold a user's own serializer's
/// values or a ``DecodableResponseSerializer``'s, and `switch` over it would break each time
/// Ferry added a serializer.
public struct CompoundResponseSerializer: ResponseSerializing {
    /// What a compound serializer hands back: the winning serializer's object, and which
    /// serializer it was.
    public struct Value: Sendable {
        /// The object as the serializer made it (never nil: a nil is no answer); `Data`
        /// when the fallback answered. A serializer's `Optional` value stays wrapped here (a
        /// `JSONValue?` holding a value: Swift cannot conform `Optional` to a protocol only
        /// where its wrapped type is `Sendable`, so nothing can unwrap it into `any Sendable`
        /// generically); ``object(as:)``, ``json`` and ``data`` see through it.
        public let object: any Sendable
        /// The index in ``CompoundResponseSerializer/serializers`` of the serializer that
        /// answered; nil when the plain HTTP fallback did.
        public let serializerIndex: Int?

        /// The object as `type` (through an `Optional` wrapping), or nil when it is of another
        /// type.
        public func object<T>(as type: T.Type = T.self) -> T? {
            object as? T
        }

        /// The object when a JSON serializer answered.
        public var json: JSONValue? { object as? JSONValue }

        /// The body when the plain HTTP fallback answered (or a serializer whose value is `Data`).
        public var data: Data? { object as? Data }
    }

    /// The serializers, tried in order.
    public var serializers: [any ResponseSerializing]
    /// What answers when none of ``serializers`` does: its status and content-type rules
    /// decide whether the response is refused (2xx, any content type, by default).
    public var fallback = HTTPResponseSerializer()

    /// A serializer trying `serializers` in order.
    public init(_ serializers: [any ResponseSerializing]) {
        self.serializers = serializers
    }

    /// The first answer of ``serializers``, else the body as ``fallback`` validates it.
    /// - Throws: ``NetworkError`` from ``fallback`` when no serializer answers and it refuses
    ///   the response (``NetworkError/Code/badServerResponse`` for a status,
    ///   ``NetworkError/Code/cannotDecodeContentData`` for a content type); the serializers'
    ///   own errors are not kept (AFNetworking does the same).
    public func serialize(_ response: NetworkResponse, data: Data?) throws(NetworkError) -> Value {
        for (index, serializer) in serializers.enumerated() {
            guard let answer = try? serializer.serialize(response, data: data), let object = responseObject(answer) else { continue }
            return Value(object: object, serializerIndex: index)
        }
        return Value(object: try fallback.serialize(response, data: data), serializerIndex: nil)
    }
}

