import FerryWire
import HTTPTypes
import Testing

/// Malformed and truncated responses: each must fail with the exact kind and byte offset,
/// however the input is split.
@Suite struct ResponseParserErrorTests {
    private static let ok = "HTTP/1.1 200 OK\r\n"  // 17 bytes
    private static let chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"  // 47 bytes

    private func expectError(
        _ input: String,
        _ kind: HTTPParseError.Kind,
        at offset: Int,
        limits: ParserLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectError(bytes(input), kind, at: offset, limits: limits, sourceLocation: sourceLocation)
    }

    private func expectError(
        _ input: [UInt8],
        _ kind: HTTPParseError.Kind,
        at offset: Int,
        limits: ParserLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let transcript = ParserDriver.runAllSplits(input, limits: limits, sourceLocation: sourceLocation)
        #expect(transcript.error == HTTPParseError(kind, offset: offset), sourceLocation: sourceLocation)
    }

    // MARK: - Status line

    @Test func badStatusLine() {
        expectError("HTTX/1.1 200 OK\r\n\r\n", .invalidStatusLine, at: 3)
        expectError("HTTP/1.1 200OK\r\n\r\n", .invalidStatusLine, at: 12)
        expectError("HTTP/1.1  200 OK\r\n\r\n", .invalidStatusLine, at: 9)
        expectError("\r\nHTTP/1.1 200 OK\r\n\r\n", .invalidStatusLine, at: 0)
        expectError("HTTP/1.1 200 O\u{7}K\r\n\r\n", .invalidStatusLine, at: 14)
    }

    @Test func badVersion() {
        expectError("HTTP/2.0 200 OK\r\n\r\n", .unsupportedVersion, at: 5)
        expectError("HTTP/1.x 200 OK\r\n\r\n", .invalidStatusLine, at: 7)
        expectError("HTTP/11 200 OK\r\n\r\n", .invalidStatusLine, at: 6)
    }

    @Test func nonDigitStatus() {
        expectError("HTTP/1.1 2x0 OK\r\n\r\n", .invalidStatusLine, at: 10)
        expectError("HTTP/1.1 099 Low\r\n\r\n", .invalidStatusLine, at: 9)
        expectError("HTTP/1.1 20\r\n\r\n", .invalidStatusLine, at: 11)
    }

    // MARK: - Field lines

    @Test func invalidFieldName() {
        expectError(Self.ok + "Bad Name: x\r\n\r\n", .invalidFieldName, at: 20)
        expectError(Self.ok + ": x\r\n\r\n", .invalidFieldName, at: 17)
        expectError(Self.ok + "NoColon\r\n\r\n", .invalidFieldName, at: 24)
        expectError(Self.ok + "X-A : x\r\n\r\n", .invalidFieldName, at: 20)
    }

    @Test func controlBytesInValue() {
        expectError(Self.ok + "X-A: a\u{0}b\r\n\r\n", .invalidFieldValue, at: 23)
        expectError(Self.ok + "X-A: a\u{1B}b\r\n\r\n", .invalidFieldValue, at: 23)
        expectError(Self.ok + "X-A: a\u{7F}\r\n\r\n", .invalidFieldValue, at: 23)
    }

    @Test func bareCarriageReturn() {
        expectError(Self.ok + "X-A: a\rb\r\n\r\n", .bareCarriageReturn, at: 23)
        expectError(Self.ok + "X-A: a\r\r\n\r\n", .bareCarriageReturn, at: 23)
        expectError("HTTP/1.1 200 OK\rX-A: b\r\n\r\n", .bareCarriageReturn, at: 15)
        expectError(Self.ok + "X\rA: b\r\n\r\n", .bareCarriageReturn, at: 18)
    }

    @Test func obsoleteLineFolding() {
        expectError(Self.ok + "X-A: a\r\n b\r\n\r\n", .obsoleteLineFolding, at: 25)
        expectError(Self.ok + "\tX-A: a\r\n\r\n", .obsoleteLineFolding, at: 17)
    }

    @Test func lineTooLong() {
        let limits = ParserLimits(maxLineLength: 20)
        expectError(Self.ok + "X-Long: 0123456789abcdef\r\n\r\n", .fieldLineTooLong, at: 37, limits: limits)
        expectError(Self.ok + "X-Long: 0123456789abcdef", .fieldLineTooLong, at: 37, limits: limits)
        expectError("HTTP/1.1 200 OK\r\n\r\n", .statusLineTooLong, at: 10, limits: ParserLimits(maxLineLength: 10))
        // Exactly at the limit is fine, with CRLF or with a bare LF.
        let exact = ParserDriver.runAllSplits(bytes("HTTP/1.1 200 OK\r\nX: 1\r\n\r\n"), limits: ParserLimits(maxLineLength: 15))
        #expect(exact.error == nil && exact.messages.count == 1)
        let exactLF = ParserDriver.runAllSplits(bytes("HTTP/1.1 200 OK\nX: 1\n\n"), limits: ParserLimits(maxLineLength: 15))
        #expect(exactLF.error == nil && exactLF.messages.count == 1)
    }

    @Test func tooManyFields() {
        let limits = ParserLimits(maxFieldCount: 2)
        expectError(Self.ok + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n", .tooManyFields, at: 29, limits: limits)
    }

    @Test("a parser kept for the next exchange enforces that exchange's limits and keeps nothing of the last")
    func limitsChangeBetweenResponses() throws {
        let response = bytes(Self.ok + "A: 1\r\nB: 2\r\nC: 3\r\nContent-Length: 0\r\n\r\n")
        var parser = ResponseParser(limits: .default)
        func parse(_ pieces: [[UInt8]]) throws -> ResponseHead? {
            parser.expectResponse(to: .get)
            for piece in pieces {
                let head = try piece.withUnsafeBytes { input -> ResponseHead? in
                    var index = 0
                    if case .head(let head) = try parser.parse(input, from: &index) { return head }
                    return nil
                }
                if let head { return head }
            }
            return nil
        }
        #expect(try parse([response])?.headerFields.count == 4)
        // An exchange abandoned in the middle of a field line, its start in the line buffer...
        #expect(try parse([bytes(Self.ok + "X-Half: abc")]) == nil)
        // ...leaves nothing behind: the next responses, under other limits, read as their own.
        parser.enforce(ParserLimits(maxFieldCount: 2))
        #expect(parser.limits.maxFieldCount == 2)
        #expect(throws: HTTPParseError(.tooManyFields, offset: 29)) { try parse([response]) }
        parser.enforce(ParserLimits(maxLineLength: 10))
        #expect(throws: HTTPParseError(.statusLineTooLong, offset: 10)) { try parse([response]) }
        parser.enforce(.default)
        let split = try parse([Array(response[..<20]), Array(response[20...])])  // inside "A: 1"
        #expect(split?.headerFields.count == 4)
        #expect(split?.headerFields[HTTPField.Name("A")!] == "1")
    }

    @Test func headerSectionTooLarge() {
        let input = Self.ok + "A: 1\r\nB: 2\r\n\r\n"  // 31 bytes
        expectError(input, .headerSectionTooLarge, at: 30, limits: ParserLimits(maxHeaderBytes: 30))
        let fits = ParserDriver.runAllSplits(bytes(input), limits: ParserLimits(maxHeaderBytes: 31))
        #expect(fits.error == nil && fits.messages.count == 1)
    }

    // MARK: - Content-Length

    @Test func conflictingContentLength() {
        expectError(Self.ok + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", .conflictingContentLength, at: 36)
        expectError(Self.ok + "Content-Length: 5, 6\r\n\r\n", .conflictingContentLength, at: 17)
    }

    @Test func invalidContentLength() {
        for value in ["5x", "-1", "", "+5", "0x10", "99999999999999999999", "5,"] {
            expectError(Self.ok + "Content-Length: \(value)\r\n\r\n", .invalidContentLength, at: 17)
        }
    }

    // MARK: - Chunked

    @Test func invalidChunkSize() {
        expectError(Self.chunkedHead + "zz\r\n", .invalidChunkSize, at: 47)
        expectError(Self.chunkedHead + "5x\r\n", .invalidChunkSize, at: 48)
        expectError(Self.chunkedHead + "5 x\r\n", .invalidChunkSize, at: 49)
        expectError(Self.chunkedHead + ";ext\r\n", .invalidChunkSize, at: 47)
        expectError(Self.chunkedHead + "5\n", .invalidChunkFraming, at: 48)
        expectError(Self.chunkedHead + "5\rx", .invalidChunkFraming, at: 49)
    }

    @Test func chunkSizeOverflow() {
        expectError(Self.chunkedHead + "8000000000000000\r\n", .chunkSizeOverflow, at: 62)
        expectError(Self.chunkedHead + "7fffffffffffffff\r\n", .incompleteBody, at: 65)
    }

    @Test func missingCRLFAfterChunkData() {
        expectError(Self.chunkedHead + "3\r\nabcX", .invalidChunkFraming, at: 53)
        expectError(Self.chunkedHead + "3\r\nabc\rX", .invalidChunkFraming, at: 54)
        expectError(Self.chunkedHead + "3\r\nabc\n0\r\n\r\n", .invalidChunkFraming, at: 53)
    }

    @Test func chunkExtensionTooLong() {
        let limits = ParserLimits(maxChunkExtensionBytes: 4)
        expectError(Self.chunkedHead + "1;abcd\r\nx\r\n0\r\n\r\n", .chunkExtensionTooLong, at: 52, limits: limits)
        let fits = ParserDriver.runAllSplits(bytes(Self.chunkedHead + "1;abc\r\nx\r\n0\r\n\r\n"), limits: limits)
        #expect(fits.error == nil && fits.messages.first?.bodyText == "x")
        expectError(Self.chunkedHead + "1;a\u{0}\r\n", .invalidChunkFraming, at: 50)
    }

    @Test func trailersTooLarge() {
        let limits = ParserLimits(maxTrailerBytes: 10)
        expectError(Self.chunkedHead + "0\r\nX-T: 123456\r\n\r\n", .trailersTooLarge, at: 60, limits: limits)
        expectError(Self.chunkedHead + "0\r\nX-T: 1\r\n\u{0}\r\n", .invalidFieldName, at: 58)
    }

    // MARK: - End of input

    @Test func endOfInputInHead() {
        expectError(Self.ok + "X-A: 1", .incompleteHead, at: 23)
        expectError("HTTP/1.1 100 Continue\r\n\r\n", .incompleteHead, at: 25)
    }

    @Test func endOfInputInBody() {
        expectError(Self.ok + "Content-Length: 5\r\n\r\nhel", .incompleteBody, at: 41)
        expectError(Self.chunkedHead + "5\r\nhel", .incompleteBody, at: 53)
        expectError(Self.chunkedHead + "0\r\nX-T: 1\r\n", .incompleteBody, at: 58)
    }

    @Test func endOfInputBeforeAnyByte() {
        expectError([UInt8](), .incompleteHead, at: 0)
    }

    @Test func unexpectedData() throws {
        var parser = ResponseParser()
        #expect(throws: HTTPParseError(.unexpectedData, offset: 0)) {
            try bytes("HTTP/1.1 200 OK\r\n").withUnsafeBytes { input in
                var index = 0
                _ = try parser.parse(input, from: &index)
            }
        }
        // After `.end`, bytes nobody asked for are refused at their offset in the stream.
        parser.expectResponse(to: .get)
        let input = bytes("HTTP/1.1 204 No Content\r\n\r\nX")
        var events: [ResponseParser.Event] = []
        let error = #expect(throws: HTTPParseError.self) {
            try input.withUnsafeBytes { buffer in
                var index = 0
                while true { events.append(try parser.parse(buffer, from: &index)) }
            }
        }
        #expect(error == HTTPParseError(.unexpectedData, offset: 27))
        #expect(events.count == 2)
        // The parser stays failed until it is told to expect a new response.
        #expect(throws: HTTPParseError(.unexpectedData, offset: 27)) { try parser.inputEnded() }
        parser.expectResponse(to: .get)
        #expect(!parser.isIdle)
    }
}
