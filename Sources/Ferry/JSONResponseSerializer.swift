import FerrySession
import FoundationEssentials

/// AFNetworking's `AFJSONResponseSerializer`: validates the status and content type
/// (`application/json`, `text/json`, `text/javascript`) with ``HTTPResponseSerializer``, then
/// reads the body with Ferry's own JSON reader into a ``JSONValue`` that crosses threads.
///
/// An empty body, or one lone space (what some servers send for "nothing"), is nil without an
/// error, as in AFNetworking. A refused status throws the HTTP serializer's error, which
/// carries the response and the body (`JSONValue(parsing: error.responseData!)` reads an
/// error document).
public struct JSONResponseSerializer: ValidatingResponseSerializer {
    /// How the body is read: AFNetworking's `NSJSONReadingOptions` that have a meaning here.
    public struct ReadingOptions: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// A top-level string, number, boolean or null is accepted, not only an object or an
        /// array (`NSJSONReadingFragmentsAllowed`).
        public static let fragmentsAllowed = ReadingOptions(rawValue: 1 << 2)
    }

    /// The MIME types a JSON serializer accepts by default.
    public static let jsonContentTypes: Set<String> = ["application/json", "text/json", "text/javascript"]

    /// The status and content-type validation.
    public var http: HTTPResponseSerializer
    /// How the body is read; fragments are allowed by default, as Apple's current
    /// `JSONSerialization` reads them.
    public var readingOptions: ReadingOptions
    /// Whether object members whose value is null are removed, at every depth and through
    /// arrays (whose null elements go too), as AFNetworking's option of that name does.
    public var removesKeysWithNullValues = false


    /// A serializer accepting 2xx JSON responses.
    /// - Parameter readingOptions: How the body is read (fragments allowed by default).
    public init(readingOptions: ReadingOptions = [.fragmentsAllowed]) {
        self.readingOptions = readingOptions
        http = HTTPResponseSerializer()
        http.acceptableContentTypes = Self.jsonContentTypes
    }

    /// The JSON value of the body, nil for an empty body or one lone space.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/badServerResponse`` or
    ///   ``NetworkError/Code/cannotDecodeContentData`` when validation refuses the response,
    ///   and ``NetworkError/Code/cannotParseResponse`` when the body is not JSON (its
    ///   `underlyingError` is the ``JSONParseError``, its reason names the byte and shows the
    ///   start of the body); all carry the response and the body.
    public func serialize(_ response: NetworkResponse, data: Data?) throws(NetworkError) -> JSONValue? {
        try http.validate(response, data: data)
        guard let data, !Self.isEmpty(data) else { return nil }
        let value = try Self.parse(data, allowsFragments: readingOptions.contains(.fragmentsAllowed), response: response)
        return removesKeysWithNullValues ? value.removingNullValues() : value
    }

    /// No body, or AFNetworking's lone space.
    static func isEmpty(_ data: Data) -> Bool {
        data.isEmpty || (data.count == 1 && data.first == UInt8(ascii: " "))
    }

    /// `data` read as JSON, or the ``NetworkError`` a serializer throws for a body that is not.
    static func parse(_ data: Data, allowsFragments: Bool, response: NetworkResponse) throws(NetworkError) -> JSONValue {
        do throws(JSONParseError) {
            return try JSONReader(allowsFragments: allowsFragments).read(data)
        } catch {
            throw NetworkError(.cannotParseResponse,
                               reason: "The response is not valid JSON: \(error) (\(response.statusCode)"
                                   + ", \(response.mimeType ?? "no content type"))" + HTTPResponseSerializer.bodyStart(data),
                               failingURL: response.url, underlyingError: error, response: response, responseData: data)
        }
    }
}
