#if FoundationSerializers
import FoundationEssentials

/// A property list or any part of it, as ``PropertyListResponseSerializer`` hands it back: the
/// `Sendable` counterpart of the `NSDictionary`/`NSArray`/`NSNumber` tree that
/// `PropertyListSerialization` (and so AFNetworking's `responseObject`) gives, which cannot
/// cross threads in Swift 6. Needs the `FoundationSerializers` trait, on by default.
///
/// Numbers keep what the document said: `<integer>` is ``int(_:)`` (an integer beyond `Int`,
/// which binary property lists can hold, is ``double(_:)``, keeping its magnitude), `<real>` is
/// ``double(_:)`` even when whole, and `<true/>`/`<false/>` are ``bool(_:)``, never numbers.
///
/// Reading a missing member never traps: `value["items"]?[0]?["name"]?.stringValue` is nil
/// when any step is absent or of another kind.
public indirect enum PropertyListValue: Sendable, Hashable {
    /// Named members (`<dict>`).
    case dictionary([String: PropertyListValue])
    /// Values in order (`<array>`).
    case array([PropertyListValue])
    /// Text (`<string>`).
    case string(String)
    /// Bytes (`<data>`).
    case data(Data)
    /// A moment (`<date>`).
    case date(Date)
    /// A whole number (`<integer>`) that fits in `Int`.
    case int(Int)
    /// A real (`<real>`), or an integer too large for `Int`.
    case double(Double)
    /// `<true/>` or `<false/>`.
    case bool(Bool)

    /// The member named `key` of a dictionary; nil when absent or when this is not a dictionary.
    public subscript(key: String) -> PropertyListValue? {
        guard case .dictionary(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; nil when out of range or when this is not an array.
    public subscript(index: Int) -> PropertyListValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The text of a string; nil for any other kind.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The number of an integer; nil for any other kind (a real is not read as an integer).
    public var intValue: Int? {
        guard case .int(let number) = self else { return nil }
        return number
    }

    /// The number of a real or an integer; nil for any other kind.
    public var doubleValue: Double? {
        switch self {
        case .double(let number): return number
        case .int(let number): return Double(number)
        case .dictionary, .array, .string, .data, .date, .bool: return nil
        }
    }

    /// The truth of a boolean; nil for any other kind (numbers are not booleans).
    public var boolValue: Bool? {
        guard case .bool(let truth) = self else { return nil }
        return truth
    }

    /// The bytes of a data value; nil for any other kind.
    public var dataValue: Data? {
        guard case .data(let bytes) = self else { return nil }
        return bytes
    }

    /// The moment of a date; nil for any other kind.
    public var dateValue: Date? {
        guard case .date(let moment) = self else { return nil }
        return moment
    }

    /// The elements of an array; nil for any other kind.
    public var arrayValue: [PropertyListValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The members of a dictionary; nil for any other kind.
    public var dictionaryValue: [String: PropertyListValue]? {
        guard case .dictionary(let members) = self else { return nil }
        return members
    }
}

extension PropertyListValue: ExpressibleByStringLiteral {
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension PropertyListValue: ExpressibleByIntegerLiteral {
    /// An integer value.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension PropertyListValue: ExpressibleByFloatLiteral {
    /// A real value.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension PropertyListValue: ExpressibleByBooleanLiteral {
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PropertyListValue: ExpressibleByArrayLiteral {
    /// An array value.
    public init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
}

extension PropertyListValue: ExpressibleByDictionaryLiteral {
    /// A dictionary value; a key given twice keeps its last value.
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
#endif
