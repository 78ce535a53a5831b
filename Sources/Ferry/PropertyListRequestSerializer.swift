import FerrySession
import FoundationEssentials
import HTTPTypes

/// AFNetworking's `AFPropertyListRequestSerializer`: parameters as a property list body (XML or
/// binary, `Content-Type: application/x-plist` unless the request has one), except for the
/// methods that put them in the URL, which the HTTP rules serve. Written with
/// FoundationEssentials' `PropertyListEncoder`, so no full Foundation is linked. A value a
/// property list cannot hold (``ParameterValue/null``, a set) is a thrown error naming where
/// it sits, as `PropertyListSerialization` refuses `NSNull`.
public struct PropertyListRequestSerializer: RequestSerializing {
    /// The property list's encoding.
    public enum Format: Sendable, Hashable {
        /// `<?xml …?><plist version="1.0">…`.
        case xml
        /// `bplist00…`.
        case binary
    }

    /// The headers, timeout, URL methods and query rules, shared with the HTTP serializer.
    public var http = HTTPRequestSerializer()
    /// XML by default, as AFNetworking's.
    public var format = Format.xml

    /// A property-list serializer with the HTTP serializer's default headers.
    public init() {}

    /// Applies the headers and timeout, then `parameters`: in the URL for the query methods,
    /// else as the property-list body.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` for parameters a
    ///   property list has no form for.
    public func serialize(_ request: NetworkRequest, with parameters: Parameters?) throws(NetworkError) -> NetworkRequest {
        try http.serialize(request, with: parameters, asBody: "application/x-plist") { parameters throws(NetworkError) in
            if let path = Self.firstUnrepresentable(.dictionary(parameters), path: "") {
                throw NetworkError(.invalidRequest, reason: "The parameters are not a valid property list: \(path)",
                                   failingURL: request.url)
            }
            let encoder = PropertyListEncoder()
            encoder.outputFormat = format == .xml ? .xml : .binary
            do {
                return [UInt8](try encoder.encode(EncodablePropertyList(value: .dictionary(parameters))))
            } catch {
                throw NetworkError(.invalidRequest, reason: "The parameters cannot be written as a property list: \(error)",
                                   failingURL: request.url, underlyingError: error)
            }
        }
    }

    /// Where the first value a property list cannot hold sits, and what it is; nil when all can.
    static func firstUnrepresentable(_ value: ParameterValue, path: String) -> String? {
        let place = path.isEmpty ? "the top level" : path
        switch value {
        case .null: return "a null at \(place)"
        case .set: return "a set at \(place)"
        case .double(let number) where !number.isFinite: return "a number at \(place) is NaN or infinite"
        case .string, .int, .double, .bool: return nil
        case .array(let values):
            for (index, element) in values.enumerated() {
                if let found = firstUnrepresentable(element, path: path + "[\(index)]") { return found }
            }
            return nil
        case .dictionary(let values):
            for name in values.keys.sorted() {
                if let found = firstUnrepresentable(values[name]!, path: path.isEmpty ? name : path + "." + name) { return found }
            }
            return nil
        }
    }
}

/// A ``ParameterValue`` as `PropertyListEncoder` writes it: strings, integers, reals, booleans,
/// arrays and dictionaries (null and sets are refused before encoding).
private struct EncodablePropertyList: Encodable {
    let value: ParameterValue

    private struct Name: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .int(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .double(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .bool(let truth):
            var container = encoder.singleValueContainer()
            try container.encode(truth)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for element in values { try container.encode(EncodablePropertyList(value: element)) }
        case .dictionary(let values):
            var container = encoder.container(keyedBy: Name.self)
            for name in values.keys.sorted() {
                try container.encode(EncodablePropertyList(value: values[name]!), forKey: Name(stringValue: name))
            }
        case .null, .set:
            // Refused by firstUnrepresentable before encoding.
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: encoder.codingPath,
                                                                          debugDescription: "no property-list form"))
        }
    }
}
