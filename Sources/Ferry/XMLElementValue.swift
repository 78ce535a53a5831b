#if FoundationSerializers
import FoundationEssentials

/// An XML element and everything inside it, as ``XMLDocumentResponseSerializer`` hands back a
/// document's root: the `Sendable`, immutable counterpart of AFNetworking's `NSXMLDocument`
/// (FoundationXML's `XMLDocument` is a mutable class that cannot cross threads). Needs the
/// `FoundationSerializers` trait, on by default.
///
/// ``content`` keeps elements and text in document order; ``children`` and ``text`` are the
/// two halves of it, and ``stringValue`` is all the text inside, as `XMLNode.stringValue`.
/// Text is what the document means, not how it was written: the predefined entities
/// (`&amp;` …) and character references are replaced, CDATA sections are plain text, and
/// adjacent pieces are one ``Content/text(_:)``. Comments and processing instructions are
/// not kept.
public struct XMLElementValue: Sendable, Hashable {
    /// A piece of an element's content.
    public enum Content: Sendable, Hashable {
        /// A child element.
        case element(XMLElementValue)
        /// A run of text (character data, references and CDATA sections joined).
        case text(String)
    }

    /// The element's name: its local name (`item` for `<atom:item>`) when namespaces were
    /// processed, else its name as written.
    public let name: String
    /// The element's namespace when namespaces were processed and it has one; else nil.
    public let namespaceURI: String?
    /// The element's name as written, with its prefix (`atom:item`).
    public let qualifiedName: String
    /// The attributes by name, their values with references replaced. When namespaces were
    /// processed, the `xmlns` declarations are not among them.
    public let attributes: [String: String]
    /// Child elements and text, in document order.
    public let content: [Content]

    /// An element.
    /// - Parameters:
    ///   - name: The local name (or the name as written when namespaces are not processed).
    ///   - namespaceURI: The namespace, if any.
    ///   - qualifiedName: The name as written; `name` when nil.
    ///   - attributes: The attributes by name.
    ///   - content: Child elements and text, in order.
    public init(name: String, namespaceURI: String? = nil, qualifiedName: String? = nil,
                attributes: [String: String] = [:], content: [Content] = []) {
        self.name = name
        self.namespaceURI = namespaceURI
        self.qualifiedName = qualifiedName ?? name
        self.attributes = attributes
        self.content = content
    }

    /// The child elements, in order.
    public var children: [XMLElementValue] {
        content.compactMap { piece in
            guard case .element(let element) = piece else { return nil }
            return element
        }
    }

    /// The text directly inside this element (not inside its children), its runs joined.
    public var text: String {
        var joined = ""
        for case .text(let run) in content { joined += run }
        return joined
    }

    /// All the text inside this element and its descendants, in document order
    /// (`XMLNode.stringValue`).
    public var stringValue: String {
        var joined = ""
        for piece in content {
            switch piece {
            case .text(let run): joined += run
            case .element(let element): joined += element.stringValue
            }
        }
        return joined
    }

    /// The child elements called `name` (matched against ``name``), in order.
    public func children(named name: String) -> [XMLElementValue] {
        children.filter { $0.name == name }
    }

    /// The first child element called `name`, or nil; `root.firstChild(named: "user")?.text`.
    public func firstChild(named name: String) -> XMLElementValue? {
        for case .element(let element) in content where element.name == name { return element }
        return nil
    }

    /// The value of the attribute called `name`, or nil.
    public subscript(attribute name: String) -> String? {
        attributes[name]
    }
}
#endif
