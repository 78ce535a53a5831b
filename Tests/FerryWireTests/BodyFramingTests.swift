import FerryWire
import HTTPTypes
import Testing

/// ``BodyFraming/decide(statusCode:version:requestMethod:headerFields:)`` rule by rule
/// (RFC 9112 §6.3).
@Suite struct BodyFramingTests {
    private func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return fields
    }

    private func decide(
        _ code: Int,
        _ pairs: [(String, String)] = [],
        version: HTTPVersion = .http1_1,
        method: HTTPRequest.Method = .get
    ) throws(BodyFraming.Failure) -> BodyFraming.Decision {
        try BodyFraming.decide(statusCode: code, version: version, requestMethod: method, headerFields: fields(pairs))
    }

    @Test func noBodyStatusesAndHead() throws {
        let badLength = [("Content-Length", "nonsense"), ("Transfer-Encoding", "chunked")]
        for code in [100, 103, 204, 304] {
            #expect(try decide(code, badLength) == .init(framing: .none, keepAlive: true))
        }
        #expect(try decide(200, badLength, method: .head) == .init(framing: .none, keepAlive: true))
        #expect(try decide(101, [("Connection", "upgrade")]) == .init(framing: .none, keepAlive: false))
    }

    @Test func connect() throws {
        #expect(try decide(200, [("Content-Length", "10")], method: .connect) == .init(framing: .none, keepAlive: false))
        #expect(try decide(407, [("Content-Length", "10")], method: .connect) == .init(framing: .contentLength(10), keepAlive: true))
    }

    @Test func transferEncoding() throws {
        #expect(try decide(200, [("Transfer-Encoding", "Chunked")]) == .init(framing: .chunked, keepAlive: true))
        #expect(try decide(200, [("Transfer-Encoding", "gzip, chunked")]) == .init(framing: .chunked, keepAlive: true))
        #expect(try decide(200, [("Transfer-Encoding", "gzip"), ("Transfer-Encoding", "chunked")])
            == .init(framing: .chunked, keepAlive: true))
        #expect(try decide(200, [("Transfer-Encoding", "chunked, gzip")]) == .init(framing: .untilClose, keepAlive: false))
        #expect(try decide(200, [("Transfer-Encoding", "gzip")]) == .init(framing: .untilClose, keepAlive: false))
        #expect(try decide(200, [("Transfer-Encoding", "chunked"), ("Content-Length", "5")])
            == .init(framing: .chunked, keepAlive: false))
        #expect(try decide(200, [("Content-Length", "bad"), ("Transfer-Encoding", "chunked")])
            == .init(framing: .chunked, keepAlive: false), "TE overrides, so CL isn't parsed")
        #expect(try decide(200, [("Transfer-Encoding", "chunked"), ("Connection", "keep-alive")], version: .http1_0)
            == .init(framing: .chunked, keepAlive: false), "RFC 9112 §6.1: faulty framing in 1.0")
    }

    @Test func contentLength() throws {
        #expect(try decide(200, [("Content-Length", "0")]) == .init(framing: .contentLength(0), keepAlive: true))
        #expect(try decide(200, [("Content-Length", "5, 5")]) == .init(framing: .contentLength(5), keepAlive: true))
        #expect(try decide(200, [("Content-Length", "5"), ("Content-Length", "5")])
            == .init(framing: .contentLength(5), keepAlive: true))
        #expect(try decide(200, [("Content-Length", "9223372036854775807")])
            == .init(framing: .contentLength(Int64.max), keepAlive: true))
        #expect(throws: BodyFraming.Failure(.conflictingContentLength, fieldIndex: 2)) {
            try decide(200, [("Content-Length", "5"), ("Date", "x"), ("Content-Length", "6")])
        }
        #expect(throws: BodyFraming.Failure(.invalidContentLength, fieldIndex: 0)) {
            try decide(200, [("Content-Length", "9223372036854775808")])
        }
        #expect(throws: BodyFraming.Failure(.invalidContentLength, fieldIndex: 1)) {
            try decide(200, [("Content-Length", "5"), ("Content-Length", " ")])
        }
    }

    @Test func untilClose() throws {
        #expect(try decide(200) == .init(framing: .untilClose, keepAlive: false))
        #expect(try decide(500, [("Connection", "keep-alive")], version: .http1_0)
            == .init(framing: .untilClose, keepAlive: false))
    }

    @Test func keepAlive() throws {
        let length = ("Content-Length", "1")
        #expect(try decide(200, [length]).keepAlive)
        #expect(try !decide(200, [length, ("Connection", "close")]).keepAlive)
        #expect(try !decide(200, [length, ("Connection", "Upgrade, CLOSE")]).keepAlive)
        #expect(try !decide(200, [length], version: .http1_0).keepAlive)
        #expect(try decide(200, [length, ("Connection", "Keep-Alive")], version: .http1_0).keepAlive)
        #expect(try !decide(200, [length, ("Connection", "keep-alive, close")], version: .http1_0).keepAlive)
        #expect(try decide(200, [length], version: HTTPVersion(major: 1, minor: 2)).keepAlive, "RFC 9110 §2.5")
    }
}
