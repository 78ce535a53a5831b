#if FoundationSerializers
// The document is read with FoundationXML's XMLParser (XMLTreeBuilder.swift); this file needs
// no Foundation of its own, but it is part of the `FoundationSerializers` trait.
import FerrySession
import FoundationEssentials

/// AFNetworking's `AFXMLDocumentResponseSerializer`: validates the status and content type
/// (`application/xml`, `text/xml`) with ``HTTPResponseSerializer``, then parses the body into
/// an ``XMLElementValue``: the document's root element, with its attributes, child elements
/// and text. Needs the `FoundationSerializers` trait, on by default.
///
/// AFNetworking hands back an `NSXMLDocument`. FoundationXML's `XMLDocument` is a mutable
/// class, not `Sendable`, and a serializer's value crosses from the processing queue to the
/// completion queue; rather than declare it safe to share (it is not), the document is read
/// once, with FoundationXML's `XMLParser`, into the immutable ``XMLElementValue`` tree, which
/// is. External entities are never loaded (no file or network read can hide in a response),
/// and entities declared in the document's own DTD are not expanded (`XMLParser` drops them);
/// the predefined entities and character references are.
///
/// An empty body is nil without an error. A refused status throws the HTTP serializer's
/// error, which carries the response and the body.
public struct XMLDocumentResponseSerializer: ValidatingResponseSerializer {
    /// The status and content-type validation.
    public var http: HTTPResponseSerializer
    /// Whether element names are split into a local name and a namespace (true by default,
    /// as `XMLDocument` resolves them): `<atom:entry xmlns:atom="…">` is named `entry` with
    /// its namespace URI, and its `qualifiedName` is `atom:entry`. When false, names are
    /// kept as written.
    public var processesNamespaces = true
    /// Whether text that is only whitespace (the indentation between elements) is kept as
    /// text; false by default, as `XMLDocument` drops it unless told to preserve whitespace.
    public var preservesWhitespace = false


    /// A serializer accepting 2xx XML responses.
    public init() {
        http = HTTPResponseSerializer()
        http.acceptableContentTypes = XMLParserResponseSerializer.xmlContentTypes
    }

    /// The document's root element, nil for an empty body.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/badServerResponse`` or
    ///   ``NetworkError/Code/cannotDecodeContentData`` when validation refuses the response,
    ///   and ``NetworkError/Code/cannotParseResponse`` when the body is not well-formed XML
    ///   (the reason says what is wrong and at which line and column, and shows the start of
    ///   the body; the parser's `NSError` is the underlying error). All carry the response and
    ///   the body.
    public func serialize(_ response: NetworkResponse, data: Data?) throws(NetworkError) -> XMLElementValue? {
        try http.validate(response, data: data)
        guard let data, !data.isEmpty else { return nil }
        do throws(XMLTreeBuilder.Failure) {
            return try XMLTreeBuilder.build(data, processesNamespaces: processesNamespaces,
                                            preservesWhitespace: preservesWhitespace)
        } catch {
            throw NetworkError(.cannotParseResponse,
                               reason: "The response is not well-formed XML: \(error.description) (\(response.statusCode)"
                                   + ", \(response.mimeType ?? "no content type"))" + HTTPResponseSerializer.bodyStart(data),
                               failingURL: response.url, underlyingError: error.parserError, response: response,
                               responseData: data)
        }
    }
}
#endif
