#if FoundationSerializers
import Foundation
import Testing

@testable import Ferry

/// AFXMLDocumentResponseSerializer's accept/reject matrix (status × content type × body), the
/// element tree (nesting, attributes, text, CDATA, entities, namespaces, whitespace), nil for
/// an empty body, and errors that name the line and column of a malformed document.
@Suite("XML document response serializer")
struct XMLDocumentResponseSerializerTests {
    static func response(_ status: Int, _ contentType: String?) -> NetworkResponse {
        HTTPResponseSerializerTests.response(status, contentType)
    }

    static func serialize(_ xml: String, _ serializer: XMLDocumentResponseSerializer = XMLDocumentResponseSerializer())
        throws(NetworkError) -> XMLElementValue? {
        try serializer.serialize(response(200, "application/xml"), data: Data(xml.utf8))
    }

    enum Outcome: Equatable, Sendable {
        case accepted(XMLElementValue?)
        case refused(NetworkError.Code)
    }

    @Test("status × content type × body", arguments: [
        (200, "application/xml", "<ok/>", Outcome.accepted(XMLElementValue(name: "ok"))),
        (201, "text/xml; charset=utf-8", "<?xml version=\"1.0\"?><ok>yes</ok>",
         .accepted(XMLElementValue(name: "ok", content: [.text("yes")]))),
        (200, "APPLICATION/XML", "<ok a=\"1\"/>", .accepted(XMLElementValue(name: "ok", attributes: ["a": "1"]))),
        (204, nil, nil, .accepted(nil)),
        (200, "application/xml", "", .accepted(nil)),
        (200, "text/html", "", .accepted(nil)),
        (200, "application/xml", "<open>", .refused(.cannotParseResponse)),
        (200, "application/xml", "not xml", .refused(.cannotParseResponse)),
        (200, "text/xml", "<a></b>", .refused(.cannotParseResponse)),
        (200, "text/html", "<html></html>", .refused(.cannotDecodeContentData)),
        (200, "application/json", "{}", .refused(.cannotDecodeContentData)),
        (200, nil, "<ok/>", .refused(.cannotDecodeContentData)),
        (404, "application/xml", "<error>no such user</error>", .refused(.badServerResponse)),
        (500, "text/html", "<html>", .refused(.badServerResponse)),
        (304, nil, nil, .refused(.badServerResponse)),
    ] as [(Int, String?, String?, Outcome)])
    func matrix(status: Int, contentType: String?, body: String?, outcome: Outcome) {
        let data = body.map { Data($0.utf8) }
        do {
            let value = try XMLDocumentResponseSerializer().serialize(Self.response(status, contentType), data: data)
            #expect(outcome == .accepted(value))
        } catch {
            #expect(outcome == .refused(error.code))
            #expect(error.response?.statusCode == status)
            #expect(error.responseData == data)
        }
    }

    @Test func nestedElementsAttributesAndText() throws {
        let root = try #require(try Self.serialize("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment is not kept -->
            <users count="2" page="1">
              <user id="7" role="admin &amp; owner">
                <name>Ada Lovelace</name>
                <email>ada@example.com</email>
              </user>
              <user id="8"><name>Charles</name><email/></user>
            </users>
            """))
        #expect(root.name == "users")
        #expect(root.attributes == ["count": "2", "page": "1"])
        #expect(root[attribute: "count"] == "2")
        #expect(root.children.map(\.name) == ["user", "user"])
        #expect(root.text == "", "the indentation between elements is dropped")
        let users = root.children(named: "user")
        #expect(users.map { $0[attribute: "id"] } == ["7", "8"])
        #expect(users[0][attribute: "role"] == "admin & owner")
        #expect(users[0].firstChild(named: "name")?.text == "Ada Lovelace")
        #expect(users[1].firstChild(named: "email") == XMLElementValue(name: "email"))
        #expect(users[1].firstChild(named: "phone") == nil)
        #expect(root.stringValue == "Ada Lovelaceada@example.comCharles")
    }

    @Test func entitiesAndCharacterReferencesAreReplaced() throws {
        let root = try #require(try Self.serialize("<p>x &lt; y &amp;&amp; &quot;q&quot; &apos;s&apos; caf&#233; &#x1F600;</p>"))
        #expect(root.content == [.text("x < y && \"q\" 's' café 😀")], "one run, not one per reference")
    }

    @Test func cdataIsTextAndKeptEvenWhenBlank() throws {
        let root = try #require(try Self.serialize("<r><code><![CDATA[if (a < b && c) { x = \"<tag>\"; }]]></code><pad><![CDATA[  ]]></pad><mix>a <![CDATA[<b>]]> c</mix></r>"))
        #expect(root.firstChild(named: "code")?.text == "if (a < b && c) { x = \"<tag>\"; }")
        #expect(root.firstChild(named: "pad")?.content == [.text("  ")])
        #expect(root.firstChild(named: "mix")?.content == [.text("a <b> c")])
    }

    @Test func mixedContentKeepsItsOrder() throws {
        let root = try #require(try Self.serialize("<p>Hello <b>bold</b> and <i>italic</i>!</p>"))
        #expect(root.content == [
            .text("Hello "), .element(XMLElementValue(name: "b", content: [.text("bold")])),
            .text(" and "), .element(XMLElementValue(name: "i", content: [.text("italic")])), .text("!"),
        ])
        #expect(root.text == "Hello  and !")
        #expect(root.stringValue == "Hello bold and italic!")
    }

    @Test func whitespaceIsKeptOnRequest() throws {
        var serializer = XMLDocumentResponseSerializer()
        #expect(serializer.preservesWhitespace == false)
        serializer.preservesWhitespace = true
        let root = try #require(try Self.serialize("<r>\n  <a> x </a>\n</r>", serializer))
        #expect(root.content == [.text("\n  "), .element(XMLElementValue(name: "a", content: [.text(" x ")])), .text("\n")])
        let trimmed = try #require(try Self.serialize("<r>\n  <a> x </a>\n</r>"))
        #expect(trimmed.content == [.element(XMLElementValue(name: "a", content: [.text(" x ")]))],
                "text that is not only whitespace keeps its spaces")
    }

    @Test func namespacesAreProcessedByDefault() throws {
        let xml = #"<feed xmlns="urn:atom" xmlns:m="urn:media"><m:thumb url="a.png"/><entry>e</entry></feed>"#
        let root = try #require(try Self.serialize(xml))
        #expect(root.name == "feed")
        #expect(root.namespaceURI == "urn:atom")
        let thumb = try #require(root.children.first)
        #expect(thumb.name == "thumb")
        #expect(thumb.qualifiedName == "m:thumb")
        #expect(thumb.namespaceURI == "urn:media")
        #expect(thumb.attributes == ["url": "a.png"])
        #expect(root.firstChild(named: "entry")?.namespaceURI == "urn:atom")

        var serializer = XMLDocumentResponseSerializer()
        serializer.processesNamespaces = false
        let asWritten = try #require(try Self.serialize(xml, serializer))
        #expect(asWritten.children.map(\.name) == ["m:thumb", "entry"])
        #expect(asWritten.namespaceURI == nil)
        #expect(asWritten.attributes["xmlns:m"] == "urn:media")
    }

    @Test func malformedDocumentsNameTheLineAndColumn() throws {
        let body = Data("<users>\n<user>\n</usr></users>".utf8)
        do {
            _ = try XMLDocumentResponseSerializer().serialize(Self.response(200, "application/xml"), data: body)
            Issue.record("read a mismatched end tag")
        } catch {
            #expect(error.code == .cannotParseResponse)
            #expect(error.reason == "The response is not well-formed XML: an end tag that does not match the element it closes"
                        + " at line 3, column 7 (200, application/xml); body begins: <users> <user> </usr></users>")
            #expect((error.underlyingError as? NSError)?.code == 76)
            #expect(error.failingURL?.host == "api.example.com")
            #expect(error.responseData == body)
        }
    }

    @Test("malformed documents say what is wrong", arguments: [
        ("<r><a>", "the document ends too early or has content after its root element at line 1"),
        ("not xml", "the document does not start with an element ('<' expected) at line 1"),
        ("<r>&nbsp;</r>", "an undeclared entity"),
        ("<r a=1/>", "an attribute value without quotes at line 1"),
        ("<r a=\"1\" a=\"2\"/>", "an attribute given twice at line 1"),
        ("<r/><s/>", "the document ends too early or has content after its root element at line 1, column 5"),
    ])
    func malformed(xml: String, problem: String) throws {
        do {
            let value = try Self.serialize(xml)
            Issue.record("read \(xml) as \(String(describing: value))")
        } catch {
            #expect(error.code == .cannotParseResponse)
            #expect(error.reason.hasPrefix("The response is not well-formed XML: " + problem), "\(error.reason)")
        }
    }

    @Test func externalEntitiesAreNeverLoaded() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-xxe-\(UUID().uuidString)")
        try Data("SECRET-FERRY-XXE".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let xml = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"\(secret.absoluteString)\">]><r>before &x; after</r>"
        do {
            let root = try Self.serialize(xml)
            #expect(root?.stringValue.contains("SECRET") == false)
        } catch {
            #expect(error.code == .cannotParseResponse)
            #expect(!error.reason.contains("SECRET-FERRY-XXE"))
        }
    }

    @Test func entitiesDeclaredInTheDocumentAreNotExpanded() throws {
        let root = try #require(try Self.serialize(#"<!DOCTYPE r [<!ENTITY co "Example Corp">]><r>(c) &co;</r>"#))
        #expect(root.text == "(c) ", "XMLParser drops a reference to an internal entity")
    }

    @Test func deepNestingIsRefused() throws {
        let depth = XMLTreeBuilder.maximumDepth + 1
        let xml = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        do {
            _ = try Self.serialize(xml)
            Issue.record("read \(depth) levels")
        } catch {
            #expect(error.code == .cannotParseResponse)
            #expect(error.reason.contains("deeper than") || error.reason.contains("error 1"), "\(error.reason)")
        }
    }

    @Test func validationIsConfigurable() throws {
        var serializer = XMLDocumentResponseSerializer()
        #expect(serializer.acceptableContentTypes == ["application/xml", "text/xml"])
        #expect(serializer.acceptableStatusCodes == Set(200...299))
        serializer.acceptableContentTypes?.insert("application/atom+xml")
        serializer.acceptableStatusCodes = nil
        let error = try serializer.serialize(Self.response(404, "application/atom+xml"), data: Data("<error>gone</error>".utf8))
        #expect(error?.text == "gone")
    }
}
#endif
