// Response-splitting and smuggling shapes at the parser (issue 20): for each, either a typed
// HTTPParseError, or one defined reading that is safe: where the response ends, and whether
// its connection may carry another exchange (keepAlive false whenever the framing was
// ambiguous). Every shape is parsed whole, one byte at a time and split at every offset, with
// the same outcome each way. FerrySessionTests' AmbiguousFramingTests checks, on the wire,
// that a connection so marked (or holding bytes past the response) is never reused.
//
// Proved elsewhere and not repeated: Transfer-Encoding with Content-Length (TE wins, no
// reuse), "gzip" alone or "chunked, gzip" (read to close), HTTP/1.0 with chunked (no reuse):
// BodyFramingTests.transferEncoding; "5, 5" and repeated equal lengths: BodyFramingTests.
// contentLength; two lengths, "5, 6", negative, plus-signed, hex, huge, empty, "5,":
// ResponseParserErrorTests.conflictingContentLength/invalidContentLength; obs-fold,
// bare CR in a value, a name or the status line, NUL and other controls in a value, a space
// before the colon: ResponseParserErrorTests; chunk-size junk ("5x", "5 x", ";ext"),
// overflow, a bare LF after the size, no CRLF after data: ResponseParserErrorTests; a bare LF
// ending every line: the bare-lf fixture; bytes after a 204: ResponseParserErrorTests.
// unexpectedData; bytes after a HEAD response: EngineMalformedReplyTests.
import FerryWire
import HTTPTypes
import Testing

@Suite("Response smuggling shapes at the parser")
struct ResponseSmugglingTests {
    /// What reading the first response of some bytes gave.
    enum Outcome: Equatable, CustomStringConvertible {
        /// Refused with this kind.
        case refused(HTTPParseError.Kind)
        /// Read: the final status, framing, reuse, body, trailer names, and the bytes left
        /// after the response's end (which never belong to it).
        case read(status: Int, framing: BodyFraming, keepAlive: Bool, body: String, trailers: [String] = [], rest: String = "")

        var description: String {
            switch self {
            case .refused(let kind): "refused(\(kind))"
            case .read(let status, let framing, let keepAlive, let body, let trailers, let rest):
                "read(\(status), \(framing), keepAlive: \(keepAlive), body: \(body.debugDescription), trailers: \(trailers), rest: \(rest.debugDescription))"
            }
        }
    }

    /// Parses the first response of `input`, delivered in the pieces `splits` cut, and stops at
    /// its end (the rest is what a connection would hold past it).
    static func firstResponse(_ input: [UInt8], splits: [Int], method: HTTPRequest.Method) -> Outcome {
        var parser = ResponseParser()
        parser.expectResponse(to: method)
        var head: ResponseHead?
        var body: [UInt8] = []
        let bounds = [0] + splits + [input.count]
        do {
            for (start, end) in zip(bounds, bounds.dropFirst()) {
                let piece = Array(input[start..<end])
                var ended: (trailers: HTTPFields, at: Int)?
                try piece.withUnsafeBytes { bytes in
                    var index = 0
                    while ended == nil {
                        switch try parser.parse(bytes, from: &index) {
                        case .needMoreData: return
                        case .head(let value): head = value
                        case .body(let range): body += bytes[range]
                        case .end(let trailers): ended = (trailers, start + index)
                        }
                    }
                }
                if let ended, let head { return read(head, body, ended.trailers, rest: Array(input[ended.at...])) }
            }
            if case .end(let trailers) = try parser.inputEnded(), let head { return read(head, body, trailers, rest: []) }
            return .refused(.incompleteHead)
        } catch let error as HTTPParseError {
            return .refused(error.kind)
        } catch {
            Issue.record("not an HTTPParseError: \(error)")
            return .refused(.incompleteHead)
        }
    }

    private static func read(_ head: ResponseHead, _ body: [UInt8], _ trailers: HTTPFields, rest: [UInt8]) -> Outcome {
        .read(status: head.status.code, framing: head.framing, keepAlive: head.keepAlive, body: String(decoding: body, as: UTF8.self),
              trailers: trailers.map(\.name.canonicalName), rest: String(decoding: rest, as: UTF8.self))
    }

    /// `firstResponse` whole, byte by byte and split in two at every offset: one outcome.
    static func outcome(_ text: String, method: HTTPRequest.Method = .get, sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        let input = Array(text.utf8)
        let whole = firstResponse(input, splits: [], method: method)
        #expect(firstResponse(input, splits: input.isEmpty ? [] : Array(1..<input.count), method: method) == whole,
                "byte by byte", sourceLocation: sourceLocation)
        for offset in 0...input.count where firstResponse(input, splits: [offset], method: method) != whole {
            Issue.record("split at \(offset) differs", sourceLocation: sourceLocation)
            break
        }
        return whole
    }

    private static let ok = "HTTP/1.1 200 OK\r\n"
    private static let chunked = ok + "Transfer-Encoding: chunked\r\n\r\n"
    private static let second = "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled"

    // MARK: - Conflicting or odd framing fields

    @Test("Transfer-Encoding not ending in chunked overrides Content-Length: read to close, never reused", arguments: [
        "gzip", "chunked;q=1", "xchunked", "identity", "", "chunked, identity",
    ])
    func transferEncodingNotChunked(codings: String) {
        let text = Self.ok + "Transfer-Encoding: \(codings)\r\nContent-Length: 5\r\n\r\nhello" + Self.second
        #expect(Self.outcome(text) == .read(status: 200, framing: .untilClose, keepAlive: false, body: "hello" + Self.second))
    }

    @Test("chunked twice is framed by the final chunked, as RFC 9112 §6.3 rule 4 reads it")
    func chunkedTwice() {
        #expect(Self.outcome(Self.ok + "Transfer-Encoding: chunked, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
            == .read(status: 200, framing: .chunked, keepAlive: true, body: "abc"))
    }

    @Test("a framing field with white space before its colon, or folded onto a second line, is refused", arguments: [
        ("Transfer-Encoding : chunked\r\n", HTTPParseError.Kind.invalidFieldName),
        ("Content-Length\t: 5\r\n", .invalidFieldName),
        ("Transfer-Encoding: gzip\r\n chunked\r\n", .obsoleteLineFolding),
        ("Content-Length: 5\r\n\t5\r\n", .obsoleteLineFolding),
        ("Content-Length: 5\r\nTransfer-Encoding:\u{0}chunked\r\n", .invalidFieldValue),
        ("X\u{0}A: 1\r\n", .invalidFieldName),
    ])
    func malformedFramingFieldLine(line: String, kind: HTTPParseError.Kind) {
        #expect(Self.outcome(Self.ok + line + "\r\nhello") == .refused(kind))
    }

    @Test("a bare LF ends a field line (RFC 9112 §2.2), so what follows it is a field of its own, never part of a value")
    func bareLineFeedSplitsFields() {
        #expect(Self.outcome(Self.ok + "X-A: a\nContent-Length: 5\r\n\r\nhello")
            == .read(status: 200, framing: .contentLength(5), keepAlive: true, body: "hello"))
    }

    @Test("Content-Length with leading zeros is the same length")
    func leadingZeros() {
        #expect(Self.outcome(Self.ok + "Content-Length: 0005\r\n\r\nhello!")
            == .read(status: 200, framing: .contentLength(5), keepAlive: true, body: "hello", rest: "!"))
    }

    @Test("NUL in the reason phrase is refused")
    func nulInReason() {
        #expect(Self.outcome("HTTP/1.1 200 O\u{0}K\r\nContent-Length: 0\r\n\r\n") == .refused(.invalidStatusLine))
    }

    // MARK: - Where a response ends

    @Test("bytes past Content-Length (a second response smuggled into the body) are left over, not read")
    func bodyLongerThanContentLength() {
        #expect(Self.outcome(Self.ok + "Content-Length: 2\r\n\r\nhi" + Self.second)
            == .read(status: 200, framing: .contentLength(2), keepAlive: true, body: "hi", rest: Self.second))
    }

    @Test("204 and 304 end at the head whatever their framing fields say; the body sent anyway is left over",
          arguments: [204, 304])
    func noBodyStatusWithBody(status: Int) {
        #expect(Self.outcome("HTTP/1.1 \(status) X\r\nContent-Length: 5\r\n\r\nhello")
            == .read(status: status, framing: .none, keepAlive: true, body: "", rest: "hello"))
        #expect(Self.outcome("HTTP/1.1 \(status) X\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
            == .read(status: status, framing: .none, keepAlive: true, body: "", rest: "5\r\nhello\r\n0\r\n\r\n"))
    }

    @Test("an interim 1xx ends at its head: a body sent with it is read as the next status line and refused")
    func interimWithBody() {
        #expect(Self.outcome("HTTP/1.1 100 Continue\r\nContent-Length: 5\r\n\r\nhello" + Self.second) == .refused(.invalidStatusLine))
        #expect(Self.outcome("HTTP/1.1 103 Early Hints\r\nTransfer-Encoding: chunked\r\n\r\n" + Self.second)
            == .read(status: 200, framing: .contentLength(8), keepAlive: true, body: "smuggled"))
    }

    // MARK: - Chunked

    @Test("a chunk size with a sign, a prefix or leading white space is refused", arguments: [" 5", "+5", "-5", "0x5", "\t5"])
    func chunkSizeJunk(size: String) {
        #expect(Self.outcome(Self.chunked + size + "\r\nhello\r\n0\r\n\r\n") == .refused(.invalidChunkSize))
    }

    @Test("white space after the size (BWS before a chunk extension, RFC 9112 §7.1.1) and leading zeros are read")
    func chunkSizeLeniency() {
        #expect(Self.outcome(Self.chunked + "5 \t\r\nhello\r\n000000000000000000000000\r\n\r\n")
            == .read(status: 200, framing: .chunked, keepAlive: true, body: "hello"))
    }

    @Test("a CR or LF inside a chunk extension is refused, quoted or not", arguments: [
        "5;a\rb\r\n", "5;a\nb\r\n", "5;a=\"x\ry\"\r\n", "5;a=\"x\ny\"\r\n",
    ])
    func chunkExtensionLineBreaks(line: String) {
        #expect(Self.outcome(Self.chunked + line + "hello\r\n0\r\n\r\n") == .refused(.invalidChunkFraming))
    }

    @Test("trailers that name Content-Length or Transfer-Encoding change nothing: the message ends at the empty line")
    func framingFieldsInTrailers() {
        let text = Self.chunked + "5\r\nhello\r\n0\r\nContent-Length: 50\r\nTransfer-Encoding: gzip\r\n\r\n" + Self.second
        #expect(Self.outcome(text) == .read(status: 200, framing: .chunked, keepAlive: true, body: "hello",
                                             trailers: ["content-length", "transfer-encoding"], rest: Self.second))
    }

    @Test("a trailer section is held to the head's rules", arguments: [
        ("X-T: 1\r\n folded\r\n", HTTPParseError.Kind.obsoleteLineFolding),
        ("X-T: a\rb\r\n", .bareCarriageReturn),
        ("X-T : 1\r\n", .invalidFieldName),
        ("X-T: \u{0}\r\n", .invalidFieldValue),
    ])
    func malformedTrailers(line: String, kind: HTTPParseError.Kind) {
        #expect(Self.outcome(Self.chunked + "0\r\n" + line + "\r\n") == .refused(kind))
    }
}
