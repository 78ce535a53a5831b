#if FoundationSerializers
import Foundation
import Testing

@testable import Ferry

/// XMLElementValue's accessors: children, direct text, all text, lookups by name and
/// attribute, and value equality.
@Suite("XML element value")
struct XMLElementValueTests {
    static let tree = XMLElementValue(name: "p", attributes: ["lang": "en"], content: [
        .text("One "),
        .element(XMLElementValue(name: "b", content: [.text("two")])),
        .text(" three "),
        .element(XMLElementValue(name: "b", namespaceURI: "urn:x", qualifiedName: "x:b",
                                 content: [.element(XMLElementValue(name: "i", content: [.text("four")]))])),
    ])

    @Test func childrenAndText() {
        #expect(Self.tree.children.map(\.qualifiedName) == ["b", "x:b"])
        #expect(Self.tree.text == "One  three ")
        #expect(Self.tree.stringValue == "One two three four")
        #expect(Self.tree.children(named: "b").count == 2)
        #expect(Self.tree.firstChild(named: "b")?.text == "two")
        #expect(Self.tree.children(named: "i").isEmpty, "only direct children")
        #expect(Self.tree.children[1].firstChild(named: "i")?.stringValue == "four")
        #expect(Self.tree[attribute: "lang"] == "en")
        #expect(Self.tree[attribute: "dir"] == nil)
    }

    @Test func namesDefaultAndValuesCompare() {
        let element = XMLElementValue(name: "item")
        #expect(element.qualifiedName == "item")
        #expect(element.namespaceURI == nil)
        #expect(element.children.isEmpty && element.text.isEmpty && element.stringValue.isEmpty)
        #expect(element != XMLElementValue(name: "item", content: [.text("")]))
        #expect(Set([Self.tree, Self.tree, element]).count == 2)
    }
}
#endif
