import FerryWire
import HTTPTypes
import Testing

/// Well-formed responses from `Fixtures/`, each parsed whole, byte by byte and split at every
/// offset (``ParserDriver/runAllSplits(_:method:limits:sourceLocation:)``).
@Suite struct ResponseParserFixtureTests {
    private func parse(_ name: String, method: HTTPRequest.Method = .get) throws -> Transcript {
        let transcript = ParserDriver.runAllSplits(try ParserDriver.fixture(name), method: method)
        #expect(transcript.error == nil)
        return transcript
    }

    @Test func contentLength() throws {
        let transcript = try parse("content-length")
        try #require(transcript.messages.count == 1)
        let message = transcript.messages[0]
        #expect(message.head.version == .http1_1)
        #expect(message.head.status.code == 200)
        #expect(message.head.status.reasonPhrase == "OK")
        #expect(message.head.headerFields[.contentType] == "text/plain")
        #expect(message.head.framing == .contentLength(5))
        #expect(message.head.keepAlive)
        #expect(message.bodyText == "hello")
        #expect(message.trailers.isEmpty)
    }

    @Test func keepAliveThenClose() throws {
        let transcript = try parse("keep-alive-then-close")
        try #require(transcript.messages.count == 2)
        #expect(transcript.messages[0].head.keepAlive)
        #expect(transcript.messages[0].bodyText == "one")
        #expect(!transcript.messages[1].head.keepAlive)
        #expect(transcript.messages[1].bodyText == "two")
    }

    @Test func http10() throws {
        let transcript = try parse("http10")
        try #require(transcript.messages.count == 2)
        #expect(transcript.messages[0].head.version == .http1_0)
        #expect(transcript.messages[0].head.keepAlive, "Connection: keep-alive")
        #expect(transcript.messages[0].bodyText == "hi")
        #expect(!transcript.messages[1].head.keepAlive, "HTTP/1.0 closes by default")
        #expect(transcript.messages[1].bodyText == "bye")
    }

    @Test func chunkedWithExtensionsAndTrailers() throws {
        let transcript = try parse("chunked-trailers")
        try #require(transcript.messages.count == 1)
        let message = transcript.messages[0]
        #expect(message.head.framing == .chunked)
        #expect(message.head.keepAlive)
        #expect(message.bodyText == "hello, chunked!")
        #expect(message.trailers == [HTTPField.Name("X-Checksum")!: "abc", HTTPField.Name("X-Other")!: "1"])
    }

    @Test func chunkedBodyIsReportedPerDataRunWithoutCopying() throws {
        let input = try ParserDriver.fixture("chunked-trailers")
        var parser = ResponseParser()
        parser.expectResponse(to: .get)
        var ranges: [Range<Int>] = []
        try input.withUnsafeBytes { buffer in
            var index = 0
            while true {
                let event = try parser.parse(buffer, from: &index)
                if case .body(let range) = event { ranges.append(range) }
                if case .needMoreData = event { break }
            }
        }
        #expect(ranges.count == 2)
        #expect(ranges.map { String(decoding: input[$0], as: UTF8.self) } == ["hello", ", chunked!"])
        #expect(parser.isIdle)
        #expect(parser.bytesConsumedInResponse == input.count)
    }

    @Test func interimResponsesAreSkipped() throws {
        let transcript = try parse("interim")
        try #require(transcript.messages.count == 1)
        #expect(transcript.messages[0].head.status.code == 200)
        #expect(transcript.messages[0].head.headerFields[HTTPField.Name("Link")!] == nil, "103 fields don't leak")
        #expect(transcript.messages[0].bodyText == "ok")
    }

    @Test func noContentAndNotModifiedHaveNoBody() throws {
        let transcript = try parse("no-body")
        #expect(transcript.messages.map(\.head.status.code) == [204, 304])
        #expect(transcript.messages.map(\.head.framing) == [BodyFraming.none, .none])
        #expect(transcript.messages.allSatisfy { $0.body.isEmpty && $0.head.keepAlive })
    }

    @Test func headResponseHasNoBody() throws {
        let transcript = try parse("head-response", method: .head)
        try #require(transcript.messages.count == 1)
        #expect(transcript.messages[0].head.framing == BodyFraming.none)
        #expect(transcript.messages[0].head.headerFields[.contentLength] == "1234")
    }

    @Test func untilClose() throws {
        let transcript = try parse("until-close")
        try #require(transcript.messages.count == 1)
        #expect(transcript.messages[0].head.framing == .untilClose)
        #expect(!transcript.messages[0].head.keepAlive)
        #expect(transcript.messages[0].bodyText == "all of this, until the server closes")
    }

    @Test func transferEncodingWithContentLengthIsChunkedThenClose() throws {
        let transcript = try parse("te-and-cl")
        try #require(transcript.messages.count == 1)
        #expect(transcript.messages[0].head.framing == .chunked)
        #expect(!transcript.messages[0].head.keepAlive)
        #expect(transcript.messages[0].bodyText == "abc")
    }

    @Test func repeatedSetCookieKeepsEveryField() throws {
        let transcript = try parse("set-cookies")
        try #require(transcript.messages.count == 1)
        let fields = transcript.messages[0].head.headerFields
        #expect(fields[values: .setCookie] == ["a=1; Path=/", "b=2, c=3", "d=4; Expires=Wed, 21 Oct 2026 07:28:00 GMT"])
        #expect(fields[fields: .setCookie].map(\.name.rawName) == ["Set-Cookie", "set-cookie", "Set-Cookie"])
    }

    @Test func emptyAndMissingReasonPhrase() throws {
        let transcript = try parse("empty-reason")
        try #require(transcript.messages.count == 2)
        #expect(transcript.messages[0].head.status.code == 200)
        #expect(transcript.messages[0].head.status.reasonPhrase == "")
        #expect(transcript.messages[0].bodyText == "x")
        #expect(transcript.messages[1].head.status.code == 404)
        #expect(transcript.messages[1].head.status.reasonPhrase == "")
    }

    @Test func bareLineFeedEndsLinesAndValuesAreTrimmed() throws {
        let transcript = try parse("bare-lf")
        try #require(transcript.messages.count == 1)
        #expect(transcript.messages[0].bodyText == "ok")
        #expect(transcript.messages[0].head.headerFields[HTTPField.Name("X-Tab")!] == "value with\ttab")
    }

    @Test func switchingProtocolsStopsAtTheHead() throws {
        let transcript = try parse("switching-protocols")
        try #require(transcript.messages.count == 1)
        #expect(transcript.messages[0].head.status.code == 101)
        #expect(transcript.messages[0].head.framing == BodyFraming.none)
        #expect(!transcript.messages[0].head.keepAlive)
        #expect(transcript.leftover == [0x81, 0x05] + bytes("hello"))
    }

    @Test func connectTunnelStopsAtTheHead() {
        let transcript = ParserDriver.runAllSplits(
            bytes("HTTP/1.1 200 Connection established\r\n\r\n\u{16}\u{03}"),
            method: .connect
        )
        #expect(transcript.error == nil)
        #expect(transcript.messages.map(\.head.framing) == [BodyFraming.none])
        #expect(transcript.messages.first?.head.keepAlive == false)
        #expect(transcript.leftover == [0x16, 0x03])
    }

    @Test func obsTextInReasonIsLatin1() throws {
        let transcript = ParserDriver.runAllSplits([UInt8]("HTTP/1.1 200 ".utf8) + [0xC4] + bytes("\r\nContent-Length: 0\r\n\r\n"))
        #expect(transcript.messages.first?.head.status.reasonPhrase == "Ä")
    }
}

/// Inline responses for cases too small to deserve a fixture file.
@Suite struct ResponseParserInlineTests {
    @Test func fieldNamesKeepTheirCase() throws {
        let transcript = ParserDriver.runAllSplits(
            bytes("HTTP/1.1 200 OK\r\nCONTENT-LENGTH: 2\r\ncontent-type: a/b\r\nContent-Type: c/d\r\nX-Custom-Long-Name: v\r\n\r\nok")
        )
        let head = try #require(transcript.messages.first?.head)
        #expect(head.framing == .contentLength(2))
        #expect(head.headerFields.map(\.name.rawName) == ["CONTENT-LENGTH", "content-type", "Content-Type", "X-Custom-Long-Name"])
        #expect(head.headerFields[values: .contentType] == ["a/b", "c/d"])
    }

    @Test func obsTextValuesKeepTheirBytes() throws {
        let input = bytes("HTTP/1.1 200 OK\r\nX-Latin: a") + [0xE9, 0xFF] + bytes("b\r\nContent-Length: 0\r\n\r\n")
        let transcript = ParserDriver.runAllSplits(input)
        let field = try #require(transcript.messages.first?.head.headerFields.first)
        #expect(field.withUnsafeBytesOfValue { Array($0) } == [0x61, 0xE9, 0xFF, 0x62])
    }

    @Test func chunkedThenLengthOnOneConnection() {
        let input = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n")
            + bytes("HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nnop")
        let transcript = ParserDriver.runAllSplits(input)
        #expect(transcript.error == nil)
        #expect(transcript.messages.map(\.bodyText) == ["ab", "nop"])
        #expect(transcript.messages.map(\.head.status.reasonPhrase) == ["OK", "Not Found"])
    }

    @Test func emptyFieldValueAndZeroLengthBody() throws {
        let transcript = ParserDriver.runAllSplits(bytes("HTTP/1.1 200 OK\r\nX-Empty:\r\nX-Spaces:   \r\nContent-Length: 0\r\n\r\n"))
        let head = try #require(transcript.messages.first?.head)
        #expect(head.headerFields.map(\.value) == ["", "", "0"])
        #expect(transcript.messages.first?.body.isEmpty == true)
    }

    @Test func endOfInputIdleIsQuiet() throws {
        var parser = ResponseParser()
        #expect(try parser.inputEnded() == .needMoreData)
        #expect(parser.isIdle)
    }
}
