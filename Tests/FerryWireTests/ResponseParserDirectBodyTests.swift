import FerryWire
import HTTPTypes
import Testing

/// Body bytes read past the parser (straight into a consumer's buffer) and then counted with
/// `bodyBytesReadDirectly`: the framing must come out exactly as if they had been parsed.
@Suite struct ResponseParserDirectBodyTests {
    /// Parses `text` (all of it), returning the events.
    private func feed(_ parser: inout ResponseParser, _ text: String) throws -> [ResponseParser.Event] {
        let bytes = Array(text.utf8)
        var events: [ResponseParser.Event] = []
        try bytes.withUnsafeBytes { input in
            var index = 0
            while true {
                let event = try parser.parse(input, from: &index)
                events.append(event)
                if case .needMoreData = event { break }
                if case .end = event { break }
            }
        }
        return events
    }

    /// One parse of no input: what the parser says follows.
    private func next(_ parser: inout ResponseParser) throws -> ResponseParser.Event {
        var index = 0
        return try [UInt8]().withUnsafeBytes { try parser.parse($0, from: &index) }
    }

    @Test func contentLengthBodyEndsAfterTheLastDirectByte() throws {
        var parser = ResponseParser()
        parser.expectResponse(to: .get)
        #expect(parser.bodyBytesReadableDirectly == 0, "no head yet")
        let events = try feed(&parser, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n0123456789")
        #expect(events.contains { if case .head = $0 { true } else { false } })
        #expect(parser.bodyBytesReadableDirectly == 99_990)
        let headBytes = parser.bytesConsumedInResponse

        parser.bodyBytesReadDirectly(60_000)
        #expect(parser.bodyBytesReadableDirectly == 39_990)
        #expect(try next(&parser) == .needMoreData)
        parser.bodyBytesReadDirectly(39_990)
        #expect(parser.bodyBytesReadableDirectly == 0)
        #expect(try next(&parser) == .end(trailers: [:]))
        #expect(parser.bytesConsumedInResponse == headBytes + 99_990)
        #expect(parser.isIdle)
    }

    /// `isReadingHead` (stored, kept by `state`'s observer) through a whole exchange: an interim
    /// response, a head split inside a field line, a chunked body with trailers, a failure.
    @Test func isReadingHeadFollowsTheParserThroughAResponse() throws {
        var parser = ResponseParser()
        #expect(!parser.isReadingHead, "idle")
        parser.expectResponse(to: .get)
        #expect(parser.isReadingHead, "status line")
        _ = try feed(&parser, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-En")
        #expect(parser.isReadingHead, "in a field line, after an interim response")
        _ = try feed(&parser, "coding: chunked\r\n\r\n3\r\nabc\r\n")
        #expect(!parser.isReadingHead, "chunked body")
        _ = try feed(&parser, "0\r\nX-Checksum: 1")
        #expect(!parser.isReadingHead, "trailers are not the head")
        let events = try feed(&parser, "\r\n\r\n")
        #expect(events.contains { if case .end = $0 { true } else { false } })
        #expect(!parser.isReadingHead && parser.isIdle)

        parser.expectResponse(to: .get)
        #expect(parser.isReadingHead, "the next response")
        #expect(throws: HTTPParseError.self) { _ = try feed(&parser, "HTTP/1.1 200 OK\r\n bad\r\n") }
        #expect(!parser.isReadingHead, "failed")
    }

    @Test func chunkDataReadDirectlyThenTheFramingGoesOn() throws {
        var parser = ResponseParser()
        parser.expectResponse(to: .get)
        _ = try feed(&parser, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8000\r\n")
        #expect(parser.bodyBytesReadableDirectly == 0x8000)
        parser.bodyBytesReadDirectly(0x8000)
        #expect(parser.bodyBytesReadableDirectly == 0, "the chunk's CRLF is framing")
        let events = try feed(&parser, "\r\n3\r\nabc\r\n0\r\n\r\n")
        #expect(events.contains(.end(trailers: [:])))
        #expect(events.contains { if case .body(let range) = $0 { range.count == 3 } else { false } })
    }

    @Test func bodyUntilCloseHasNoLimitAndEndsWithTheInput() throws {
        var parser = ResponseParser()
        parser.expectResponse(to: .get)
        _ = try feed(&parser, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
        #expect(parser.bodyBytesReadableDirectly == .max)
        parser.bodyBytesReadDirectly(1 << 20)
        #expect(parser.bodyBytesReadableDirectly == .max)
        #expect(try parser.inputEnded() == .end(trailers: [:]))
    }

    @Test func noDirectReadsOfAHeadlessOrBodilessResponse() throws {
        var parser = ResponseParser()
        parser.expectResponse(to: .head)
        _ = try feed(&parser, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        #expect(parser.bodyBytesReadableDirectly == 0)
    }
}
