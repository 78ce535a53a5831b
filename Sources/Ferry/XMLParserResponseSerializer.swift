#if FoundationSerializers
// Its value makes FoundationXML's XMLParser (XMLParserSource.swift); this file needs no
// Foundation of its own, but it is part of the `FoundationSerializers` trait.
import FerrySession
import FoundationEssentials

/// AFNetworking's `AFXMLParserResponseSerializer`: validates the status and content type
/// (`application/xml`, `text/xml`) with ``HTTPResponseSerializer``, then hands back the body as
/// an ``XMLParserSource`` whose ``XMLParserSource/makeParser()`` makes the configured
/// FoundationXML `XMLParser` to run with a delegate of the caller's. Needs the
/// `FoundationSerializers` trait, on by default.
///
/// AFNetworking returns `[[NSXMLParser alloc] initWithData:data]` itself: a parser made from
/// the body that nobody has run. `XMLParser` is a class with mutable state (its delegate, its
/// position), not `Sendable`, and a serializer's value crosses from the processing queue to
/// the completion queue; so the value is what the parser would be made from, the body and
/// the parser's settings, and the parser is made on the thread that runs it. The body is not
/// parsed here: a malformed document shows when the caller's parser runs, as in AFNetworking;
/// check `parserError`, not only what `parse()` returns (FoundationXML's returns true for a
/// document that ends inside an element). For a parsed tree, use
/// ``XMLDocumentResponseSerializer``.
///
/// An empty body is nil without an error (there is no document to parse). A refused status
/// throws the HTTP serializer's error, which carries the response and the body.
public struct XMLParserResponseSerializer: ValidatingResponseSerializer {
    /// The MIME types an XML serializer accepts by default.
    public static let xmlContentTypes: Set<String> = ["application/xml", "text/xml"]

    /// The status and content-type validation.
    public var http: HTTPResponseSerializer
    /// `XMLParser.shouldProcessNamespaces` for the parsers made; false by default, as
    /// `XMLParser`'s.
    public var shouldProcessNamespaces = false
    /// `XMLParser.shouldReportNamespacePrefixes` for the parsers made; false by default.
    public var shouldReportNamespacePrefixes = false
    /// `XMLParser.shouldResolveExternalEntities` for the parsers made; false by default, and
    /// best left so: a response that names a file or URL as an entity would have it read.
    public var shouldResolveExternalEntities = false


    /// A serializer accepting 2xx XML responses.
    public init() {
        http = HTTPResponseSerializer()
        http.acceptableContentTypes = Self.xmlContentTypes
    }

    /// The body and the parser settings, to make a parser from; nil for an empty body.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/badServerResponse`` or
    ///   ``NetworkError/Code/cannotDecodeContentData`` when validation refuses the response;
    ///   it carries the response and the body.
    public func serialize(_ response: NetworkResponse, data: Data?) throws(NetworkError) -> XMLParserSource? {
        try http.validate(response, data: data)
        guard let data, !data.isEmpty else { return nil }
        return XMLParserSource(data: data, shouldProcessNamespaces: shouldProcessNamespaces,
                               shouldReportNamespacePrefixes: shouldReportNamespacePrefixes,
                               shouldResolveExternalEntities: shouldResolveExternalEntities)
    }
}
#endif
