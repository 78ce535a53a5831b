#if FoundationSerializers
import Foundation
import FoundationXML
import Testing

@testable import Ferry

/// AFXMLParserResponseSerializer's accept/reject matrix (status × content type × body), nil
/// for an empty body, and the parser the value makes: configured, made on the thread that runs
/// it, and reporting a malformed document when run, as AFNetworking's parser does.
@Suite("XML parser response serializer")
struct XMLParserResponseSerializerTests {
    static func response(_ status: Int, _ contentType: String?) -> NetworkResponse {
        HTTPResponseSerializerTests.response(status, contentType)
    }

    /// Records what a parser reports.
    final class Recorder: NSObject, XMLParserDelegate {
        var events: [String] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            let attributes = attributeDict.keys.sorted().map { " \($0)=\(attributeDict[$0]!)" }.joined()
            events.append("<\(elementName)\(namespaceURI.map { " {\($0)}" } ?? "")\(attributes)>")
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            events.append("</\(elementName)>")
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            events.append(string)
        }
    }

    /// The events of running `source`'s parser.
    static func run(_ source: XMLParserSource) -> (parsed: Bool, events: [String], error: (any Error)?) {
        let parser = source.makeParser()
        let recorder = Recorder()
        parser.delegate = recorder
        let parsed = parser.parse()
        return (parsed, recorder.events, parser.parserError)
    }

    enum Outcome: Equatable, Sendable {
        case accepted(Data?)
        case refused(NetworkError.Code)
    }

    @Test("status × content type × body", arguments: [
        (200, "application/xml", "<ok/>", Outcome.accepted(Data("<ok/>".utf8))),
        (201, "text/xml; charset=iso-8859-1", "<ok/>", .accepted(Data("<ok/>".utf8))),
        (200, "application/xml", "not xml", .accepted(Data("not xml".utf8))),
        (204, nil, nil, .accepted(nil)),
        (200, "application/xml", "", .accepted(nil)),
        (200, "text/html", "", .accepted(nil)),
        (200, "text/html", "<html></html>", .refused(.cannotDecodeContentData)),
        (200, "application/json", "{}", .refused(.cannotDecodeContentData)),
        (200, nil, "<ok/>", .refused(.cannotDecodeContentData)),
        (404, "application/xml", "<error/>", .refused(.badServerResponse)),
        (500, "text/html", "<html>", .refused(.badServerResponse)),
    ] as [(Int, String?, String?, Outcome)])
    func matrix(status: Int, contentType: String?, body: String?, outcome: Outcome) {
        let data = body.map { Data($0.utf8) }
        do {
            let source = try XMLParserResponseSerializer().serialize(Self.response(status, contentType), data: data)
            #expect(outcome == .accepted(source?.data))
        } catch {
            #expect(outcome == .refused(error.code))
            #expect(error.response?.statusCode == status)
            #expect(error.responseData == data)
        }
    }

    @Test func theParserReadsTheBody() throws {
        let body = Data(#"<users><user id="7">Ada &amp; co</user></users>"#.utf8)
        let source = try #require(try XMLParserResponseSerializer().serialize(Self.response(200, "text/xml"), data: body))
        let run = Self.run(source)
        #expect(run.parsed)
        #expect(run.events == ["<users>", "<user id=7>", "Ada ", "&", " co", "</user>", "</users>"])
        #expect(Self.run(source).events == run.events, "each parser made is new")
    }

    @Test func theParserIsConfiguredAsTheSerializerSays() throws {
        let body = Data(#"<a:feed xmlns:a="urn:atom"><a:entry/></a:feed>"#.utf8)
        var serializer = XMLParserResponseSerializer()
        #expect(!serializer.shouldProcessNamespaces && !serializer.shouldReportNamespacePrefixes && !serializer.shouldResolveExternalEntities)
        let plain = try #require(try serializer.serialize(Self.response(200, "application/xml"), data: body))
        #expect(Self.run(plain).events.first == "<a:feed xmlns:a=urn:atom>")

        serializer.shouldProcessNamespaces = true
        serializer.shouldReportNamespacePrefixes = true
        let source = try #require(try serializer.serialize(Self.response(200, "application/xml"), data: body))
        #expect(source == XMLParserSource(data: body, shouldProcessNamespaces: true, shouldReportNamespacePrefixes: true))
        let parser = source.makeParser()
        #expect(parser.shouldProcessNamespaces && parser.shouldReportNamespacePrefixes && !parser.shouldResolveExternalEntities)
        #expect(Self.run(source).events == ["<feed {urn:atom}>", "<entry {urn:atom}>", "</entry>", "</feed>"])
    }

    @Test func aMalformedBodyFailsWhenTheParserRuns() throws {
        let response = Self.response(200, "application/xml")
        let mismatched = try #require(try XMLParserResponseSerializer().serialize(response, data: Data("<a>\n</b>".utf8)))
        let run = Self.run(mismatched)
        #expect(!run.parsed)
        #expect((run.error as? NSError)?.domain == XMLParser.errorDomain)
        // FoundationXML's parse() returns true for a document that ends inside an element:
        // parserError is what tells.
        let unfinished = try #require(try XMLParserResponseSerializer().serialize(response, data: Data("<a><b>".utf8)))
        #expect((Self.run(unfinished).error as? NSError)?.code == 5)
    }

    @Test func theValueCrossesThreadsAndTheParserIsMadeThere() async throws {
        let body = Data("<ok>yes</ok>".utf8)
        let source = try #require(try XMLParserResponseSerializer().serialize(Self.response(200, "application/xml"), data: body))
        let events = await Task.detached { Self.run(source).events }.value
        #expect(events == ["<ok>", "yes", "</ok>"])
    }
}
#endif
