/// A ``JSONValue`` encodes and decodes itself as the JSON it stands for, through any
/// `Encoder` or `Decoder`: a `User` model can hold a free-form `metadata: JSONValue` member.
///
/// The coder decides what survives: through `JSONEncoder`/`JSONDecoder` a whole
/// ``JSONValue/double(_:)`` (`2.0`) comes back as ``JSONValue/int(_:)`` (`2`), since JSON text
/// written by `JSONEncoder` does not tell them apart; other values come back equal.
extension JSONValue: Codable {
    /// The value the decoder holds: null, a boolean, an integer (when it fits in `Int`), a
    /// double, a string, an object or an array, tried in that order.
    /// - Throws: `DecodingError.typeMismatch` when the decoder holds none of them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let truth = try? container.decode(Bool.self) {
            self = .bool(truth)
        } else if let number = try? container.decode(Int.self) {
            self = .int(number)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let members = try? container.decode([String: JSONValue].self) {
            self = .object(members)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else {
            throw DecodingError.typeMismatch(JSONValue.self, DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "Expected a JSON value (null, boolean, number, string, object or array)"))
        }
    }

    /// Encodes the value as a single value: objects as keyed dictionaries, arrays as arrays.
    /// - Throws: What the encoder throws (`JSONEncoder` refuses NaN and infinities unless told
    ///   how to write them).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .object(let members): try container.encode(members)
        case .array(let elements): try container.encode(elements)
        case .string(let text): try container.encode(text)
        case .int(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .bool(let truth): try container.encode(truth)
        case .null: try container.encodeNil()
        }
    }
}
