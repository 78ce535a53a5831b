import HTTPTypes
import Testing

@testable import FerryWire

/// `RequestHead.fieldsAsSent` reports a head exactly as `RequestEncoder` writes it: same
/// fields, same order, same framing field. One rule, two readers.
@Suite struct RequestHeadTests {
    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return fields
    }

    static let heads: [RequestHead] = [
        RequestHead(method: .get, target: "/", host: "example.com"),
        RequestHead(method: .post, target: "/form", host: "example.com:8080", headerFields: fields([("Accept", "*/*")])),
        RequestHead(method: .put, target: "/x", host: "[::1]:80", framing: .contentLength(42)),
        RequestHead(method: .post, target: "/up", host: "h", headerFields: fields([("X-A", "1")]), framing: .chunked),
        RequestHead(method: .get, target: "/", host: "h",
                    headerFields: fields([("X-A", "1"), ("Host", "override.test"), ("Content-Length", "9"), ("Transfer-Encoding", "gzip")])),
        RequestHead(method: .delete, target: "/d", host: "h"),
    ]

    @Test("the fields reported as sent are the fields the encoder writes", arguments: heads)
    func reportedFieldsMatchTheWire(_ head: RequestHead) throws {
        var bytes: [UInt8] = []
        try RequestEncoder.encodeHead(head, into: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
        let reported = head.fieldsAsSent.map { "\($0.name.rawName): \($0.value)" }
        #expect(Array(lines) == reported)
    }

    @Test func bodilessPostPutAndPatchAnnounceAnEmptyBody() {
        for method in [HTTPRequest.Method.post, .put, .patch] {
            #expect(RequestHead(method: method, target: "/", host: "h").framingField == .contentLength(0))
        }
        #expect(RequestHead(method: .get, target: "/", host: "h").framingField == nil)
        #expect(RequestHead(method: .get, target: "/", host: "h", framing: .chunked).framingField == .chunked)
    }
}
