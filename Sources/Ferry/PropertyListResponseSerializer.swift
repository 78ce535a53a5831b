#if FoundationSerializers
// PropertyListSerialization exists only in the full Foundation: behind the default
// `FoundationSerializers` trait, so a package that turns it off links none
// (ARCHITECTURE.md, "Foundation").
import FerrySession
import Foundation

/// AFNetworking's `AFPropertyListResponseSerializer`: validates the status and content type
/// (`application/x-plist`) with ``HTTPResponseSerializer``, then reads the body with
/// `PropertyListSerialization` into a ``PropertyListValue``. Needs the `FoundationSerializers`
/// trait, on by default.
///
/// AFNetworking hands back the `NSDictionary`/`NSArray` tree itself (`id`). Those objects are
/// not `Sendable`, and a serializer's value crosses from the processing queue to the completion
/// queue, so the tree is copied once into the `Sendable` ``PropertyListValue`` (dictionaries,
/// arrays, strings, data, dates, integers, reals, booleans) before it leaves the serializer.
/// For a typed model, decode the body with `PropertyListDecoder` from the
/// ``HTTPResponseSerializer``'s `Data` instead: FoundationEssentials has it.
///
/// AFNetworking's `readOptions` are mutability options (mutable containers, mutable leaves):
/// they describe Objective-C classes and mean nothing for a Swift value, which its owner
/// changes through `var`, so there are none here. Its `format` becomes ``acceptableFormats``:
/// the encodings a body may use. XML and binary by default, not the old OpenStep text format:
/// `PropertyListSerialization` reads almost any single word as an OpenStep string, so
/// accepting it would turn an error page's text into a value.
///
/// An empty body is nil without an error, as AFNetworking's JSON serializer takes one (its
/// property-list serializer fails on the empty body of a 204). A refused status throws the
/// HTTP serializer's error, which carries the response and the body.
public struct PropertyListResponseSerializer: ValidatingResponseSerializer {
    /// A property list's encoding: `.xml`, `.binary` or `.openStep`.
    public typealias Format = PropertyListSerialization.PropertyListFormat

    /// The MIME types a property-list serializer accepts by default.
    public static let propertyListContentTypes: Set<String> = ["application/x-plist"]

    /// How deeply arrays and dictionaries may nest, as for JSON.
    public static let maximumDepth = 512

    /// The status and content-type validation.
    public var http: HTTPResponseSerializer
    /// The encodings a body may use; XML and binary by default. A body in another one (or one
    /// that reads only as OpenStep text) is refused as not a property list.
    public var acceptableFormats: Set<Format>


    /// A serializer accepting 2xx property-list responses.
    /// - Parameter acceptableFormats: The encodings a body may use (XML and binary by default).
    public init(acceptableFormats: Set<Format> = [.xml, .binary]) {
        self.acceptableFormats = acceptableFormats
        http = HTTPResponseSerializer()
        http.acceptableContentTypes = Self.propertyListContentTypes
    }

    /// The property list in the body, nil for an empty body.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/badServerResponse`` or
    ///   ``NetworkError/Code/cannotDecodeContentData`` when validation refuses the response,
    ///   and ``NetworkError/Code/cannotParseResponse`` when the body is not a property list in
    ///   an acceptable format (the reason says what `PropertyListSerialization` found wrong and
    ///   where, and shows the start of the body; the `NSError` is the underlying error). All
    ///   carry the response and the body.
    public func serialize(_ response: NetworkResponse, data: Data?) throws(NetworkError) -> PropertyListValue? {
        try http.validate(response, data: data)
        guard let data, !data.isEmpty else { return nil }
        let fail = { (problem: String, cause: NSError?) in
            NetworkError(.cannotParseResponse,
                         reason: "The response is not a valid property list: \(problem) (\(response.statusCode)"
                             + ", \(response.mimeType ?? "no content type"))" + HTTPResponseSerializer.bodyStart(data),
                         failingURL: response.url, underlyingError: cause, response: response, responseData: data)
        }
        var format = Format.xml
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            let error = error as NSError
            // A binary property list Foundation cannot read is then tried as OpenStep text, and
            // the error is that reader's (`Unexpected character b at line 1`): useless here.
            let binary = data.starts(with: "bplist".utf8)
            throw fail(binary ? "it starts as a binary property list but cannot be read as one (damaged, cut short or nested"
                           + " too deeply)" : Self.describe(error), error)
        }
        guard acceptableFormats.contains(format) else {
            let found = format == .openStep ? "it reads only as the OpenStep text format" : "it is in the \(Self.name(format)) format"
            let acceptable = acceptableFormats.map(Self.name).sorted().joined(separator: ", ")
            throw fail(found + ", which acceptableFormats leaves out (acceptable: \(acceptable.isEmpty ? "none" : acceptable))", nil)
        }
        do throws(ConversionFailure) {
            return try Self.value(of: object, path: "", depth: 0)
        } catch {
            throw fail(error.problem, nil)
        }
    }

    /// Why a parsed object has no ``PropertyListValue``.
    struct ConversionFailure: Error {
        let problem: String
    }

    /// `object`, a `PropertyListSerialization` result, as a ``PropertyListValue``.
    static func value(of object: Any, path: String, depth: Int) throws(ConversionFailure) -> PropertyListValue {
        let place = path.isEmpty ? "the top level" : path
        // Foundation hands booleans back as Swift's Bool and other numbers as NSNumber, but an
        // NSNumber can also hold a boolean: both are told apart before any numeric cast, which
        // would read `1` as `true` or `2.0` as `2`.
        if type(of: object) == Bool.self, let truth = object as? Bool { return .bool(truth) }
        switch object {
        case let number as NSNumber:
            return numberValue(of: number)
        case let text as String:
            return .string(text)
        case let bytes as Data:
            return .data(bytes)
        case let moment as Date:
            return .date(moment)
        case let elements as [Any]:
            guard depth < maximumDepth else { throw ConversionFailure(problem: "nested deeper than \(maximumDepth) levels at \(place)") }
            var values: [PropertyListValue] = []
            values.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                values.append(try value(of: element, path: path + "[\(index)]", depth: depth + 1))
            }
            return .array(values)
        case let members as [AnyHashable: Any]:
            guard depth < maximumDepth else { throw ConversionFailure(problem: "nested deeper than \(maximumDepth) levels at \(place)") }
            var values: [String: PropertyListValue] = [:]
            values.reserveCapacity(members.count)
            for (key, member) in members {
                guard let name = key.base as? String else {
                    throw ConversionFailure(problem: "a dictionary key at \(place) is not a string")
                }
                values[name] = try value(of: member, path: path.isEmpty ? name : path + "." + name, depth: depth + 1)
            }
            return .dictionary(values)
        default:
            throw ConversionFailure(problem: "\(place) holds a \(type(of: object)), which has no property-list form")
        }
    }

    /// An NSNumber as what the document wrote: a boolean, an integer (beyond `Int`: a real of
    /// its magnitude) or a real.
    private static func numberValue(of number: NSNumber) -> PropertyListValue {
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "f", "d": return .double(number.doubleValue)
        case "Q", "L", "I": return number.uint64Value > UInt64(Int.max) ? .double(number.doubleValue) : .int(number.intValue)
        default: return .int(number.intValue)
        }
    }

    /// What `PropertyListSerialization` found wrong, in its words (`Value missing for key
    /// inside <dict> at line 3`), or its error's description.
    static func describe(_ error: NSError) -> String {
        if let debug = error.userInfo[NSDebugDescriptionErrorKey] as? String, !debug.isEmpty { return debug }
        return error.localizedDescription
    }

    /// `XML`, `binary`, `OpenStep`.
    static func name(_ format: Format) -> String {
        switch format {
        case .xml: return "XML"
        case .binary: return "binary"
        case .openStep: return "OpenStep"
        @unknown default: return "format \(format.rawValue)"
        }
    }
}
#endif
