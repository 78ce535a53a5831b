#if FoundationSerializers
// XMLParser exists only in FoundationXML (which links the full Foundation): behind the default
// `FoundationSerializers` trait (ARCHITECTURE.md, "Foundation").
import Foundation
import FoundationXML

/// Builds an ``XMLElementValue`` tree from a document with FoundationXML's `XMLParser`, or says
/// where and why the document is not well-formed. Used once, on one thread, then dropped: the
/// parser and this delegate never leave ``build(_:processesNamespaces:preservesWhitespace:)``.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    /// Why a document has no tree: what is wrong, and where when the parser knows.
    struct Failure: Error {
        /// The problem in words (`an end tag does not match the element it closes`).
        let problem: String
        /// The 1-based line and column, when known.
        let line: Int?
        let column: Int?
        /// The parser's error, when it reported one.
        let parserError: NSError?

        /// `… at line 3, column 5`.
        var description: String {
            guard let line, line > 0 else { return problem }
            guard let column, column > 0 else { return "\(problem) at line \(line)" }
            return "\(problem) at line \(line), column \(column)"
        }
    }

    /// How deeply elements may nest: deeper documents are refused, as JSON's 512 levels are.
    static let maximumDepth = 512

    /// An element whose end tag has not been read yet.
    private struct OpenElement {
        let name: String
        let namespaceURI: String?
        let qualifiedName: String
        let attributes: [String: String]
        var content: [XMLElementValue.Content] = []
    }

    private let preservesWhitespace: Bool
    private var open: [OpenElement] = []
    private var root: XMLElementValue?
    /// Text read since the last tag, and whether a CDATA section is part of it.
    private var pendingText = ""
    private var pendingHasCDATA = false
    private var failure: Failure?

    private init(preservesWhitespace: Bool) {
        self.preservesWhitespace = preservesWhitespace
    }

    /// The root element of `data`.
    /// - Parameters:
    ///   - processesNamespaces: Whether names are split into local name and namespace.
    ///   - preservesWhitespace: Whether text that is only whitespace (the indentation between
    ///     elements) is kept; a CDATA section is always kept.
    /// - Throws: ``Failure`` for a document that is not well-formed, has no root element or
    ///   nests deeper than ``maximumDepth``. External entities are never loaded.
    static func build(_ data: Data, processesNamespaces: Bool, preservesWhitespace: Bool) throws(Failure) -> XMLElementValue {
        let builder = XMLTreeBuilder(preservesWhitespace: preservesWhitespace)
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = processesNamespaces
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        _ = parser.parse()
        // parse() can return true with an error set (a document that ends inside an element),
        // so the error, not the result, decides.
        if let failure = builder.failure { throw failure }
        if let error = parser.parserError as NSError? {
            throw Failure(problem: describe(code: error.code), line: nil, column: nil, parserError: error)
        }
        guard let root = builder.root else {
            throw Failure(problem: "the document has no root element", line: nil, column: nil, parserError: nil)
        }
        return root
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        guard open.count < Self.maximumDepth else {
            fail(Failure(problem: "elements nest deeper than \(Self.maximumDepth) levels",
                         line: parser.lineNumber, column: parser.columnNumber, parserError: nil), parser)
            return
        }
        flushText()
        open.append(OpenElement(name: elementName, namespaceURI: namespaceURI.flatMap { $0.isEmpty ? nil : $0 },
                                qualifiedName: qName ?? elementName, attributes: attributeDict))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard failure == nil, !open.isEmpty else { return }
        flushText()
        let closed = open.removeLast()
        let element = XMLElementValue(name: closed.name, namespaceURI: closed.namespaceURI,
                                      qualifiedName: closed.qualifiedName, attributes: closed.attributes, content: closed.content)
        if open.isEmpty {
            root = element
        } else {
            open[open.count - 1].content.append(.element(element))
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        pendingText += string
    }

    func parser(_ parser: XMLParser, foundIgnorableWhitespace whitespaceString: String) {
        pendingText += whitespaceString
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        pendingText += String(decoding: CDATABlock, as: UTF8.self)
        pendingHasCDATA = true
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        let error = parseError as NSError
        // The position is read now: once parse() returns, the parser reports where it stopped.
        fail(Failure(problem: Self.describe(code: error.code), line: parser.lineNumber, column: parser.columnNumber,
                     parserError: error), nil)
    }

    /// Keeps the first failure (an abort's own error report comes after it) and stops parsing.
    private func fail(_ failure: Failure, _ parser: XMLParser?) {
        if self.failure == nil { self.failure = failure }
        parser?.abortParsing()
    }

    /// Ends the current run of text: kept unless it is only whitespace between tags.
    private func flushText() {
        defer {
            pendingText = ""
            pendingHasCDATA = false
        }
        guard !pendingText.isEmpty, !open.isEmpty else { return }
        guard preservesWhitespace || pendingHasCDATA || !pendingText.allSatisfy(\.isWhitespace) else { return }
        open[open.count - 1].content.append(.text(pendingText))
    }

    /// An `XMLParser` error code in words. The codes are libxml2's `xmlParserErrors`, which
    /// `NSXMLParserError` numbers follow on every platform (FoundationXML's Swift
    /// `XMLParser.ErrorCode` cases do not line up with them, so the numbers are used).
    static func describe(code: Int) -> String {
        if let words = problems[code] { return words }
        return "the XML parser's error \(code)"
    }

    /// The problems a server's XML most often has, by libxml2 error number.
    private static let problems: [Int: String] = [
        3: "the document does not start as XML",
        4: "the document does not start with an element ('<' expected)",
        5: "the document ends too early or has content after its root element",
        9: "a character XML does not allow",
        23: "an entity reference without its ';'",
        26: "an undeclared entity (only &amp; &lt; &gt; &quot; &apos; and character references need no declaration)",
        27: "an undeclared entity",
        31: "an unknown character encoding",
        32: "an unsupported character encoding",
        38: "a '<' inside an attribute value",
        39: "an attribute value without quotes",
        40: "an attribute value whose quote is not closed",
        41: "an attribute without a value",
        42: "an attribute given twice",
        45: "a comment that is not closed",
        62: "']]>' outside a CDATA section",
        63: "a CDATA section that is not closed",
        64: "an XML declaration that is not at the very start",
        65: "a space missing (between attributes, for instance)",
        68: "a name missing (of an element or an attribute)",
        73: "'>' expected",
        76: "an end tag that does not match the element it closes",
        77: "the document ends inside an element",
        85: "the elements are not properly nested",
        86: "content after the root element",
        201: "a namespace prefix that is not declared",
    ]
}
#endif
