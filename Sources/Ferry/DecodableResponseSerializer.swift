import FerrySession
import FoundationEssentials

/// A response decoded into a `Decodable` type by the caller's `JSONDecoder` (its key, date and
/// data strategies apply), after the JSON serializer's validation (2xx, `application/json`,
/// `text/json`, `text/javascript`): `try await manager.get("users/1", as: User.self)`.
///
/// An empty body (or one lone space) is an error unless `T` conforms to
/// ``EmptyResponseDecodable``: ``EmptyResponse`` and any `Optional` (which gives nil) do.
///
/// `JSONDecoder` is `Sendable` in the toolchain's FoundationEssentials (it guards its options
/// with a lock), so the serializer keeps the caller's decoder itself; changing the decoder's
/// options after handing it over changes how later responses decode.
public struct DecodableResponseSerializer<T: Decodable & Sendable>: ValidatingResponseSerializer {
    /// The status and content-type validation.
    public var http: HTTPResponseSerializer
    /// The decoder the body goes through.
    public var decoder: JSONDecoder


    /// A serializer decoding 2xx JSON responses as `type` with `decoder`.
    public init(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) {
        self.decoder = decoder
        http = HTTPResponseSerializer()
        http.acceptableContentTypes = JSONResponseSerializer.jsonContentTypes
    }

    /// The body decoded as `T`.
    /// - Throws: ``NetworkError`` with the validation's codes
    ///   (``NetworkError/Code/badServerResponse``, ``NetworkError/Code/cannotDecodeContentData``);
    ///   ``NetworkError/Code/cannotParseResponse`` when the body is not JSON (the
    ///   ``JSONParseError`` is the underlying error); ``NetworkError/Code/cannotDecodeContentData``
    ///   when it is JSON of another shape (the `DecodingError` is the underlying error, the
    ///   reason names the path and what was expected) or when it is empty and `T` has no empty
    ///   value. All carry the response and the body.
    public func serialize(_ response: NetworkResponse, data: Data?) throws(NetworkError) -> T {
        try http.validate(response, data: data)
        guard let data, !JSONResponseSerializer.isEmpty(data) else {
            if let empty = T.self as? any EmptyResponseDecodable.Type, let value = empty.emptyValue as? T { return value }
            throw NetworkError(.cannotDecodeContentData,
                               reason: "The response has no body to decode as \(T.self) (\(response.statusCode)); decode"
                                   + " EmptyResponse or an Optional to accept an empty body",
                               failingURL: response.url, response: response, responseData: data)
        }
        do {
            return try decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                // Most likely not JSON at all: Ferry's reader says where, in bytes.
                _ = try JSONResponseSerializer.parse(data, allowsFragments: true, response: response)
            }
            throw NetworkError(.cannotDecodeContentData,
                               reason: "The response cannot be decoded as \(T.self): \(Self.describe(error))"
                                   + HTTPResponseSerializer.bodyStart(data),
                               failingURL: response.url, underlyingError: error, response: response, responseData: data)
        } catch {
            throw NetworkError(.cannotDecodeContentData, reason: "The response cannot be decoded as \(T.self): \(error)",
                               failingURL: response.url, underlyingError: error, response: response, responseData: data)
        }
    }

    /// A `DecodingError` in words: where in the document, and what was expected there.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(describe(type)) at \(path(context.codingPath)) (\(context.debugDescription))"
        case .valueNotFound(let type, let context):
            return "expected \(describe(type)) at \(path(context.codingPath)) but found null or nothing"
        case .keyNotFound(let key, let context):
            let owner = context.codingPath.isEmpty ? "the top-level object" : "the object at \(path(context.codingPath))"
            return "the key \"\(key.stringValue)\" is missing from \(owner)"
        case .dataCorrupted(let context):
            return "invalid data at \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// `items[2].name`, or `the top level`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text.isEmpty ? "the top level" : text
    }

    /// `a String`, `an Int`, `a Dictionary<String, Any>`.
    private static func describe(_ type: Any.Type) -> String {
        let name = String(describing: type)
        return ("AEIOU".contains(name.first ?? "x") ? "an " : "a ") + name
    }
}
