#if FoundationSerializers
import Foundation
import Testing

@testable import Ferry

/// AFPropertyListResponseSerializer's accept/reject matrix (status × content type × body),
/// XML and binary property lists made by PropertyListSerialization read into the Sendable
/// PropertyListValue (booleans, integers and reals told apart), nil for an empty body, the
/// acceptable formats, and parse errors that say what is wrong.
@Suite("Property-list response serializer")
struct PropertyListResponseSerializerTests {
    static func response(_ status: Int, _ contentType: String?) -> NetworkResponse {
        HTTPResponseSerializerTests.response(status, contentType)
    }

    static let moment = Date(timeIntervalSince1970: 1_700_000_000)

    /// Every kind of property-list object, as Foundation writes it.
    static var sample: [String: Any] {[
        "name": "Ada", "age": 36, "ratio": 0.5, "whole": 2.0, "admin": true, "guest": false, "one": 1,
        "avatar": Data([0, 1, 254, 255]), "joined": moment,
        "tags": ["math", 1, false, ["nested": [1.5]]], "empty": [String: Any](),
    ]}

    /// ``sample`` as the serializer should hand it back.
    static let expected: PropertyListValue = [
        "name": "Ada", "age": 36, "ratio": 0.5, "whole": .double(2), "admin": true, "guest": false, "one": 1,
        "avatar": .data(Data([0, 1, 254, 255])), "joined": .date(moment),
        "tags": ["math", 1, false, ["nested": [1.5]]], "empty": [:],
    ]

    static func plist(_ format: PropertyListSerialization.PropertyListFormat) -> Data {
        // A fixed sample Foundation always writes: a failure here is a broken toolchain.
        try! PropertyListSerialization.data(fromPropertyList: sample, format: format, options: 0)
    }

    enum Body: Sendable, CustomStringConvertible {
        case none, text(String), xml, binary
        var data: Data? {
            switch self {
            case .none: return nil
            case .text(let text): return Data(text.utf8)
            case .xml: return PropertyListResponseSerializerTests.plist(.xml)
            case .binary: return PropertyListResponseSerializerTests.plist(.binary)
            }
        }
        var description: String {
            switch self {
            case .none: return "no body"
            case .text(let text): return text.debugDescription
            case .xml: return "XML plist"
            case .binary: return "binary plist"
            }
        }
    }

    enum Outcome: Equatable, Sendable {
        case accepted(PropertyListValue?)
        case refused(NetworkError.Code)
    }

    @Test("status × content type × body", arguments: [
        (200, "application/x-plist", Body.xml, Outcome.accepted(expected)),
        (201, "application/x-plist; charset=utf-8", .binary, .accepted(expected)),
        (299, "APPLICATION/X-PLIST", .xml, .accepted(expected)),
        (204, nil, .none, .accepted(nil)),
        (200, "application/x-plist", .text(""), .accepted(nil)),
        (200, "text/html", .text(""), .accepted(nil)),
        (200, "application/x-plist", .text("<html><body>oops</body></html>"), .refused(.cannotParseResponse)),
        (200, "application/x-plist", .text("ok"), .refused(.cannotParseResponse)),
        (200, "application/x-plist", .text("bplist00 truncated"), .refused(.cannotParseResponse)),
        (200, "text/xml", .xml, .refused(.cannotDecodeContentData)),
        (200, "application/octet-stream", .binary, .refused(.cannotDecodeContentData)),
        (200, nil, .binary, .refused(.cannotDecodeContentData)),
        (404, "application/x-plist", .xml, .refused(.badServerResponse)),
        (500, "text/html", .text("<html>"), .refused(.badServerResponse)),
        (304, nil, .none, .refused(.badServerResponse)),
    ] as [(Int, String?, Body, Outcome)])
    func matrix(status: Int, contentType: String?, body: Body, outcome: Outcome) {
        let data = body.data
        do {
            let value = try PropertyListResponseSerializer().serialize(Self.response(status, contentType), data: data)
            #expect(outcome == .accepted(value))
        } catch {
            #expect(outcome == .refused(error.code))
            #expect(error.response?.statusCode == status)
            #expect(error.responseData == data)
        }
    }

    @Test func xmlAndBinaryGiveTheSameValue() throws {
        let serializer = PropertyListResponseSerializer()
        let response = Self.response(200, "application/x-plist")
        let xml = try #require(try serializer.serialize(response, data: Self.plist(.xml)))
        let binary = try #require(try serializer.serialize(response, data: Self.plist(.binary)))
        #expect(xml == binary)
        #expect(xml["name"]?.stringValue == "Ada")
        #expect(xml["age"]?.intValue == 36)
        #expect(xml["whole"]?.intValue == nil, "a real is not an integer")
        #expect(xml["whole"]?.doubleValue == 2)
        #expect(xml["one"]?.boolValue == nil, "an integer 1 is not true")
        #expect(xml["admin"]?.boolValue == true)
        #expect(xml["guest"]?.boolValue == false)
        #expect(xml["avatar"]?.dataValue == Data([0, 1, 254, 255]))
        #expect(xml["joined"]?.dateValue == Self.moment)
        #expect(xml["tags"]?[3]?["nested"]?[0]?.doubleValue == 1.5)
        #expect(xml["tags"]?[4] == nil)
        #expect(xml["missing"]?["deeper"] == nil)
        #expect(xml["empty"]?.dictionaryValue?.isEmpty == true)
        #expect(xml["tags"]?.arrayValue?.count == 4)
    }

    @Test func topLevelArraysAndScalarsAreValues() throws {
        let response = Self.response(200, "application/x-plist")
        for (object, value) in [([1, "two"], [1, "two"]), ("text", "text"), (true, true)] as [(Any, PropertyListValue)] {
            let data = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
            #expect(try PropertyListResponseSerializer().serialize(response, data: data) == value)
        }
    }

    @Test func integersBeyondIntKeepTheirMagnitude() throws {
        let body = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array><integer>18446744073709551615</integer><integer>-5</integer></array></plist>
            """.utf8)
        let value = try PropertyListResponseSerializer().serialize(Self.response(200, "application/x-plist"), data: body)
        #expect(value == [.double(Double(UInt64.max)), .int(-5)])
    }

    @Test func malformedPropertyListsSayWhatIsWrong() throws {
        let body = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict><key>name</key></dict>
            </plist>
            """.utf8)
        do {
            _ = try PropertyListResponseSerializer().serialize(Self.response(200, "application/x-plist"), data: body)
            Issue.record("read a key without a value")
        } catch {
            #expect(error.code == .cannotParseResponse)
            #expect(error.reason.hasPrefix("The response is not a valid property list: Value missing for key inside <dict> at line 3"))
            #expect(error.reason.contains("(200, application/x-plist); body begins: <?xml version=\"1.0\""))
            #expect((error.underlyingError as? NSError)?.domain == NSCocoaErrorDomain)
            #expect(error.failingURL?.host == "api.example.com")
            #expect(error.responseData == body)
        }
    }

    @Test func aDamagedBinaryPropertyListIsNamedSo() throws {
        let whole = Self.plist(.binary)
        let cut = whole.prefix(whole.count / 2)
        do {
            _ = try PropertyListResponseSerializer().serialize(Self.response(200, "application/x-plist"), data: cut)
            Issue.record("read half a binary property list")
        } catch {
            #expect(error.code == .cannotParseResponse)
            // Foundation's own words would be the OpenStep reader's (`Unexpected character b`).
            #expect(error.reason.hasPrefix("The response is not a valid property list: it starts as a binary property list"
                                               + " but cannot be read as one (damaged, cut short or nested too deeply)"))
        }
    }

    @Test func anErrorPageIsNotReadAsOpenStepText() throws {
        let response = Self.response(200, "application/x-plist")
        do {
            _ = try PropertyListResponseSerializer().serialize(response, data: Data("Unavailable".utf8))
            Issue.record("read a bare word as a property list")
        } catch {
            #expect(error.code == .cannotParseResponse)
            #expect(error.reason == "The response is not a valid property list: it reads only as the OpenStep text format,"
                        + " which acceptableFormats leaves out (acceptable: XML, binary) (200, application/x-plist);"
                        + " body begins: Unavailable")
        }
        let openStep = PropertyListResponseSerializer(acceptableFormats: [.xml, .binary, .openStep])
        #expect(try openStep.serialize(response, data: Data("Unavailable".utf8)) == "Unavailable")
        #expect(try openStep.serialize(response, data: Data(#"{ a = (1, "x y"); }"#.utf8)) == ["a": ["1", "x y"]])
    }

    @Test func acceptableFormatsRefuseTheOthers() throws {
        var serializer = PropertyListResponseSerializer()
        #expect(serializer.acceptableFormats == [.xml, .binary])
        serializer.acceptableFormats = [.xml]
        let response = Self.response(200, "application/x-plist")
        #expect(try serializer.serialize(response, data: Self.plist(.xml)) == Self.expected)
        do {
            _ = try serializer.serialize(response, data: Self.plist(.binary))
            Issue.record("read a binary property list when only XML is acceptable")
        } catch {
            #expect(error.code == .cannotParseResponse)
            #expect(error.reason.hasPrefix("The response is not a valid property list: it is in the binary format,"
                                               + " which acceptableFormats leaves out (acceptable: XML) (200, application/x-plist)"))
        }
    }

    @Test func validationIsConfigurable() throws {
        var serializer = PropertyListResponseSerializer()
        #expect(serializer.acceptableContentTypes == ["application/x-plist"])
        #expect(serializer.acceptableStatusCodes == Set(200...299))
        serializer.acceptableContentTypes?.insert("application/octet-stream")
        serializer.acceptableStatusCodes = nil
        #expect(try serializer.serialize(Self.response(404, "application/octet-stream"), data: Self.plist(.binary)) == Self.expected)
        serializer.acceptableContentTypes = nil
        #expect(try serializer.serialize(Self.response(200, "text/plain"), data: Self.plist(.xml)) == Self.expected)
    }

    @Test func deepNestingIsRefused() throws {
        var object: Any = "leaf"
        for _ in 0..<(PropertyListResponseSerializer.maximumDepth + 1) { object = [object] }
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
        do {
            _ = try PropertyListResponseSerializer().serialize(Self.response(200, "application/x-plist"), data: data)
            Issue.record("read \(PropertyListResponseSerializer.maximumDepth + 1) levels")
        } catch {
            #expect(error.code == .cannotParseResponse)
            // Foundation stops at 512 levels itself (`Too many nested arrays or dictionaries`);
            // the serializer's own limit, 512 too, holds should it ever stop doing so.
            #expect(error.reason.contains("nested"), "\(error.reason)")
        }
    }
}
#endif
