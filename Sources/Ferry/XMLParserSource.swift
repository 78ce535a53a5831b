#if FoundationSerializers
// XMLParser exists only in FoundationXML (which links the full Foundation): behind the default
// `FoundationSerializers` trait (ARCHITECTURE.md, "Foundation").
import FoundationEssentials
import FoundationXML

/// What ``XMLParserResponseSerializer`` hands back: an XML body and the settings of the
/// `XMLParser` to read it with. A value that crosses threads, where the parser (a class with
/// mutable state) cannot; ``makeParser()`` makes a new parser on the thread that runs it, as
/// often as needed. Needs the `FoundationSerializers` trait, on by default.
public struct XMLParserSource: Sendable, Hashable {
    /// The response body: the XML document.
    public var data: Data
    /// `XMLParser.shouldProcessNamespaces` for the parser made.
    public var shouldProcessNamespaces: Bool
    /// `XMLParser.shouldReportNamespacePrefixes` for the parser made.
    public var shouldReportNamespacePrefixes: Bool
    /// `XMLParser.shouldResolveExternalEntities` for the parser made.
    public var shouldResolveExternalEntities: Bool

    /// A document and its parser settings (all false by default, as `XMLParser`'s).
    public init(data: Data, shouldProcessNamespaces: Bool = false, shouldReportNamespacePrefixes: Bool = false,
                shouldResolveExternalEntities: Bool = false) {
        self.data = data
        self.shouldProcessNamespaces = shouldProcessNamespaces
        self.shouldReportNamespacePrefixes = shouldReportNamespacePrefixes
        self.shouldResolveExternalEntities = shouldResolveExternalEntities
    }

    /// A new parser over ``data`` with these settings, not yet run: set its delegate and call
    /// `parse()`, on this thread.
    public func makeParser() -> XMLParser {
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = shouldProcessNamespaces
        parser.shouldReportNamespacePrefixes = shouldReportNamespacePrefixes
        parser.shouldResolveExternalEntities = shouldResolveExternalEntities
        return parser
    }
}
#endif
