import FoundationEssentials

/// A JSON document or any part of it, as ``JSONResponseSerializer`` hands it back: a value that
/// crosses threads, built without the full Foundation (the `Sendable` counterpart of the
/// `NSDictionary`/`NSArray` tree AFNetworking's JSON serializer returns).
///
/// Numbers keep integer against floating point: a number written without a fraction or an
/// exponent that fits in `Int` (64 bits on every platform Ferry runs on) is ``int(_:)``; any
/// other number is ``double(_:)``, including an integer too large for `Int` (it keeps its
/// magnitude, not its last digits) and `-0`, which `Int` cannot hold. ``int(_:)`` and
/// ``double(_:)`` are different values even when they name the same number (`.int(1) !=
/// .double(1)`); ``doubleValue`` reads both.
///
/// Reading a missing member never traps: `value["user"]?["tags"]?[3]?.stringValue` is nil
/// when any step is absent or of another kind.
public indirect enum JSONValue: Sendable, Hashable {
    /// Named members (a JSON object). A name given twice in a document keeps its last value,
    /// as `JSONSerialization` does.
    case object([String: JSONValue])
    /// Values in order (a JSON array).
    case array([JSONValue])
    /// Text.
    case string(String)
    /// A whole number written without a fraction or an exponent that fits in `Int`.
    case int(Int)
    /// Any other number; always finite when read from a document.
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// Reads a JSON document (RFC 8259): UTF-8, a leading byte order mark skipped.
    /// - Parameters:
    ///   - data: The document's bytes.
    ///   - allowsFragments: Whether the top-level value may be a string, number, boolean or
    ///     null rather than an object or array (true by default, as Apple's current
    ///     `JSONSerialization` reads them).
    /// - Throws: ``JSONParseError`` naming what is wrong and at which byte.
    public init(parsing data: Data, allowsFragments: Bool = true) throws(JSONParseError) {
        self = try JSONReader(allowsFragments: allowsFragments).read(data)
    }

    /// Reads a JSON document from text, as the `Data` initializer reads bytes.
    /// - Throws: ``JSONParseError`` naming what is wrong and at which byte of the UTF-8 text.
    public init(parsing text: String, allowsFragments: Bool = true) throws(JSONParseError) {
        self = try JSONReader(allowsFragments: allowsFragments).read(Array(text.utf8))
    }

    // MARK: - Reading members

    /// The member named `key` of an object; nil when there is none or this is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; nil when the index is out of range (negative
    /// included) or this is not an array. Never traps.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The text of a ``string(_:)``, else nil.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The number of an ``int(_:)``, else nil (a ``double(_:)`` is not rounded).
    public var intValue: Int? {
        guard case .int(let number) = self else { return nil }
        return number
    }

    /// The number of a ``double(_:)``, or an ``int(_:)`` converted (to the nearest double
    /// above 2⁵³); else nil.
    public var doubleValue: Double? {
        switch self {
        case .double(let number): number
        case .int(let number): Double(number)
        default: nil
        }
    }

    /// The truth of a ``bool(_:)``, else nil (numbers are not truth values).
    public var boolValue: Bool? {
        guard case .bool(let truth) = self else { return nil }
        return truth
    }

    /// The elements of an ``array(_:)``, else nil.
    public var arrayValue: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The members of an ``object(_:)``, else nil.
    public var objectValue: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// Whether this is ``null``.
    public var isNull: Bool { self == .null }

    // MARK: - Transforming

    /// The same value without the object members whose value is ``null``, at every depth,
    /// through arrays too, whose ``null`` elements are dropped as well: AFNetworking 4's
    /// `AFJSONObjectByRemovingKeysWithNullValues`. A top-level ``null`` stays.
    public func removingNullValues() -> JSONValue {
        switch self {
        case .object(let members):
            var kept: [String: JSONValue] = [:]
            kept.reserveCapacity(members.count)
            for (name, member) in members where member != .null { kept[name] = member.removingNullValues() }
            return .object(kept)
        case .array(let elements):
            return .array(elements.filter { $0 != .null }.map { $0.removingNullValues() })
        case .string, .int, .double, .bool, .null:
            return self
        }
    }

    /// The JSON bytes of this value: compact unless `prettyPrinted`, object names in
    /// ascending order, `/` not escaped; a ``double(_:)`` keeps a fraction or exponent
    /// (`2.0`), so reading the bytes back gives an equal value.
    /// - Throws: `EncodingError.invalidValue` naming where a NaN or an infinity sits (JSON
    ///   has no form for them; only code can put them in a value).
    public func jsonData(prettyPrinted: Bool = false) throws -> Data {
        do throws(JSONWriter.Failure) {
            return Data(try JSONWriter(prettyPrinted: prettyPrinted, escapesSlashes: false).write(self))
        } catch {
            throw EncodingError.invalidValue(self, EncodingError.Context(codingPath: [], debugDescription: error.description))
        }
    }

    /// This value decoded as `type` by `decoder` (its key, date and data strategies apply),
    /// by writing it as JSON and decoding those bytes.
    /// - Throws: `DecodingError` when the value does not match `type`; `EncodingError` when it
    ///   holds a NaN or an infinity.
    public func decode<T: Decodable>(_ type: T.Type = T.self, using decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: jsonData())
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text, names in ascending order, `/` not escaped
    /// (`{"a":[1,2.5,"x"]}`). A NaN or infinite ``double(_:)``, which only code can make, is
    /// written `NaN`, `Infinity` or `-Infinity` (JavaScript's names) so describing never fails.
    public var description: String {
        String(decoding: JSONWriter(escapesSlashes: false, writesNonFiniteNumbers: true).writeDescription(self), as: UTF8.self)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// An ``int(_:)``.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// ``null``.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An ``array(_:)``.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An ``object(_:)``; a name given twice keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements) { _, last in last })
    }
}
