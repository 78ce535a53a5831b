import FerrySession
import FoundationEssentials
import HTTPTypes

/// AFNetworking's `AFJSONRequestSerializer`: parameters as a JSON body
/// (`Content-Type: application/json` unless the request has one), except for the methods
/// that put them in the URL (GET, HEAD and DELETE by default), which the HTTP rules serve.
/// A value JSON cannot hold (a set, NaN, an infinity) is a thrown error naming where it sits.
public struct JSONRequestSerializer: RequestSerializing {
    /// How the JSON is written.
    public struct WritingOptions: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Indented, one member a line (two spaces per level).
        public static let prettyPrinted = WritingOptions(rawValue: 1 << 0)
        /// `/` written as is rather than `\/`.
        public static let withoutEscapingSlashes = WritingOptions(rawValue: 1 << 1)
    }

    /// The headers, timeout, URL methods and query rules, shared with the HTTP serializer.
    public var http = HTTPRequestSerializer()
    /// How the body is written; object names always go in ascending order (the same
    /// parameters make the same bytes).
    public var writingOptions: WritingOptions = []

    /// A JSON serializer with the HTTP serializer's default headers.
    public init() {}

    /// Applies the headers and timeout, then `parameters`: in the URL for the query methods,
    /// else as the JSON body.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` for parameters
    ///   JSON has no form for.
    public func serialize(_ request: NetworkRequest, with parameters: Parameters?) throws(NetworkError) -> NetworkRequest {
        let writer = JSONWriter(prettyPrinted: writingOptions.contains(.prettyPrinted),
                                escapesSlashes: !writingOptions.contains(.withoutEscapingSlashes),
                                writesWholeDoublesAsIntegers: true)
        return try http.serialize(request, with: parameters, asBody: "application/json") { parameters throws(NetworkError) in
            do throws(JSONWriter.Failure) {
                return try writer.write(ParameterValue.dictionary(parameters))
            } catch {
                throw NetworkError(.invalidRequest, reason: "The parameters are not valid JSON: \(error)", failingURL: request.url)
            }
        }
    }

    /// `request` with `body` as its JSON body, written with ``writingOptions``, and
    /// `Content-Type: application/json` unless it has one; the serializer's headers and
    /// timeout too, whatever the method (a body was asked for).
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` naming where a NaN
    ///   or an infinity sits.
    public func serialize(_ request: NetworkRequest, json body: JSONValue) throws(NetworkError) -> NetworkRequest {
        let writer = JSONWriter(prettyPrinted: writingOptions.contains(.prettyPrinted),
                                escapesSlashes: !writingOptions.contains(.withoutEscapingSlashes))
        var request = http.applyingDefaults(to: request)
        do throws(JSONWriter.Failure) {
            request.body = .bytes(try writer.write(body))
        } catch {
            throw NetworkError(.invalidRequest, reason: "The body is not valid JSON: \(error)", failingURL: request.url)
        }
        if request.headerFields[.contentType] == nil { request.headerFields[.contentType] = "application/json" }
        return request
    }

    /// `request` with `body` encoded as JSON by `encoder` (the caller's date and key
    /// strategies apply), and `Content-Type: application/json` unless it has one; the
    /// serializer's headers and timeout too.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` naming what the
    ///   encoder refused.
    public func serialize(_ request: NetworkRequest, encoding body: some Encodable,
                          with encoder: JSONEncoder = JSONEncoder()) throws(NetworkError) -> NetworkRequest {
        var request = http.applyingDefaults(to: request)
        do {
            request.body = .data(try encoder.encode(body))
        } catch {
            throw NetworkError(.invalidRequest, reason: "The body cannot be encoded as JSON: \(error)", failingURL: request.url,
                               underlyingError: error)
        }
        if request.headerFields[.contentType] == nil { request.headerFields[.contentType] = "application/json" }
        return request
    }
}
