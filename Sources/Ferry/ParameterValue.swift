/// One value of a request's parameters, as AFNetworking's serializers take them (an
/// `NSDictionary` of strings, numbers, `NSNull`, arrays, dictionaries and sets), in a form that
/// crosses threads: `["page": 2, "tags": ["a", "b"], "q": nil]` is written with literals.
///
/// The query-string and form rules are ``QueryStringSerialization``'s; a JSON serializer refuses
/// a ``set(_:)``, which JSON has no form for, with an error (AFNetworking's `NSSet` in a JSON
/// body is the same mistake).
public indirect enum ParameterValue: Sendable, Hashable {
    /// Text.
    case string(String)
    /// A whole number.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A truth value; written `1` or `0` in a query, as AFNetworking writes an `NSNumber` bool.
    case bool(Bool)
    /// No value (`NSNull`): the bare key in a query, `null` in JSON.
    case null
    /// Values in order: `key[]=…` once each in a query.
    case array([ParameterValue])
    /// Named values: `key[name]=…` in a query, names in ascending order.
    case dictionary([String: ParameterValue])
    /// Values without order: sorted, each under the bare key in a query.
    case set(Set<ParameterValue>)
}

/// A request's parameters by name: the counterpart of AFNetworking's `parameters` dictionary.
public typealias Parameters = [String: ParameterValue]

extension ParameterValue: ExpressibleByStringLiteral {
    /// A ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension ParameterValue: ExpressibleByIntegerLiteral {
    /// An ``int(_:)``.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension ParameterValue: ExpressibleByFloatLiteral {
    /// A ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension ParameterValue: ExpressibleByBooleanLiteral {
    /// A ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension ParameterValue: ExpressibleByNilLiteral {
    /// ``null``.
    public init(nilLiteral: ()) { self = .null }
}

extension ParameterValue: ExpressibleByArrayLiteral {
    /// An ``array(_:)``.
    public init(arrayLiteral elements: ParameterValue...) { self = .array(elements) }
}

extension ParameterValue: ExpressibleByDictionaryLiteral {
    /// A ``dictionary(_:)``; a name given twice keeps its last value.
    public init(dictionaryLiteral elements: (String, ParameterValue)...) {
        self = .dictionary(Dictionary(elements) { _, last in last })
    }
}

extension ParameterValue: CustomStringConvertible {
    /// The value as a query writes a leaf (`NSObject.description` for AFNetworking's leaves):
    /// text as it is, numbers in their shortest form, `1`/`0` for a bool, an empty string for
    /// ``null``; containers as a readable outline.
    public var description: String {
        switch self {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .bool(let truth): truth ? "1" : "0"
        case .null: ""
        case .array(let values): "(" + values.map(\.description).joined(separator: ", ") + ")"
        case .dictionary(let values):
            "{" + values.keys.sorted().map { "\($0) = \(values[$0]!.description)" }.joined(separator: "; ") + "}"
        case .set(let values): "{(" + values.map(\.description).sorted().joined(separator: ", ") + ")}"
        }
    }
}
