import FerryWire
import HTTPTypes
import Testing

@Suite struct RequestEncoderTests {
    private func encode(_ head: RequestHead) throws -> String {
        var buffer: [UInt8] = []
        try RequestEncoder.encodeHead(head, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Encoding `head` must throw `kind` and leave a non-empty buffer exactly as it was.
    private func expectRefusal(
        _ head: RequestHead,
        _ kind: RequestEncodingError.Kind,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before: [UInt8] = Array("previous request".utf8)
        var buffer = before
        do {
            try RequestEncoder.encodeHead(head, into: &buffer)
            Issue.record("encoded \(head)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == kind, sourceLocation: sourceLocation)
        }
        #expect(buffer == before, sourceLocation: sourceLocation)
    }

    // MARK: - Exact bytes

    @Test func getWithFieldsInOrder() throws {
        let fields: HTTPFields = [.accept: "*/*", .userAgent: "ferry/1.0", .accept: "text/html"]
        let head = RequestHead(method: .get, target: "/a/b?c=d", host: "example.com:8080", headerFields: fields)
        #expect(try encode(head) == "GET /a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\nUser-Agent: ferry/1.0\r\nAccept: text/html\r\n\r\n")
    }

    /// swift-http-types splits a Cookie value into pairs (HTTP/2's crumbs); HTTP/1.1 sends one
    /// Cookie line (RFC 6265bis §5.8.3), in the fields' order, where the first one stood.
    @Test func cookiePairsGoOutAsOneField() throws {
        var fields: HTTPFields = [.accept: "*/*"]
        fields[.cookie] = "a=1; b=2"
        fields.append(HTTPField(name: .userAgent, value: "ferry/1.0"))
        fields.append(HTTPField(name: .cookie, value: "jar=3"))
        #expect(fields.count == 5, "the split this guards against")
        let head = RequestHead(method: .get, target: "/", host: "h", headerFields: fields)
        #expect(try encode(head) == "GET / HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nCookie: a=1; b=2; jar=3\r\nUser-Agent: ferry/1.0\r\n\r\n")
        #expect(head.fieldsAsSent[values: .cookie] == ["a=1; b=2; jar=3"])
        let single = RequestHead(method: .get, target: "/", host: "h", headerFields: [.cookie: "only=1"])
        #expect(try encode(single) == "GET / HTTP/1.1\r\nHost: h\r\nCookie: only=1\r\n\r\n")
    }

    @Test func appendsAfterExistingBytes() throws {
        var buffer: [UInt8] = [0x41]
        try RequestEncoder.encodeHead(RequestHead(method: .delete, target: "/x", host: "[::1]:8080"), into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "ADELETE /x HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n")
    }

    @Test func framingLines() throws {
        #expect(try encode(RequestHead(method: .post, target: "/", host: "h", framing: .contentLength(1234)))
            == "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1234\r\n\r\n")
        #expect(try encode(RequestHead(method: .put, target: "/", host: "h", framing: .contentLength(0)))
            == "PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
        #expect(try encode(RequestHead(method: .post, target: "/", host: "h", framing: .chunked))
            == "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(try encode(RequestHead(method: .post, target: "/", host: "h", framing: .contentLength(Int64.max)))
            == "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775807\r\n\r\n")
    }

    @Test func bodylessMethodsThatExpectContentSayZero() throws {
        for method in [HTTPRequest.Method.post, .put, .patch] {
            #expect(try encode(RequestHead(method: method, target: "/", host: "h"))
                == "\(method.rawValue) / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
        }
        for method in [HTTPRequest.Method.get, .head, .delete, .options] {
            #expect(try encode(RequestHead(method: method, target: "/", host: "h"))
                == "\(method.rawValue) / HTTP/1.1\r\nHost: h\r\n\r\n")
        }
    }

    @Test func hostFieldOverridesAndFramingFieldsAreDropped() throws {
        let host = HTTPField.Name("Host")!
        let fields: HTTPFields = [
            .accept: "*/*", host: "override.test:81", .contentLength: "99", .transferEncoding: "gzip",
            host: "second.test",
        ]
        let head = RequestHead(method: .post, target: "/", host: "ignored", headerFields: fields, framing: .contentLength(2))
        #expect(try encode(head) == "POST / HTTP/1.1\r\nHost: override.test:81\r\nAccept: */*\r\nContent-Length: 2\r\n\r\n")
    }

    @Test func chunkFraming() {
        var buffer: [UInt8] = []
        RequestEncoder.encodeChunkHeader(size: 0, into: &buffer)
        RequestEncoder.encodeChunkHeader(size: 255, into: &buffer)
        RequestEncoder.encodeChunkHeader(size: 4096, into: &buffer)
        RequestEncoder.encodeChunkHeader(size: Int.max, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "0\r\nff\r\n1000\r\n7fffffffffffffff\r\n")
        #expect(RequestEncoder.chunkTerminator == Array("\r\n".utf8))
        #expect(RequestEncoder.lastChunk == Array("0\r\n\r\n".utf8))
    }

    @Test func encodedChunksParseBack() {
        var body: [UInt8] = []
        for piece in ["hello", ", ", "world of chunks"] {
            RequestEncoder.encodeChunkHeader(size: piece.utf8.count, into: &body)
            body += Array(piece.utf8) + RequestEncoder.chunkTerminator
        }
        body += RequestEncoder.lastChunk
        let response = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + body
        let transcript = ParserDriver.runAllSplits(response)
        #expect(transcript.error == nil)
        #expect(transcript.messages.first?.bodyText == "hello, world of chunks")
    }

    // MARK: - Refusals

    @Test func refusesBadTarget() {
        for target in ["", "/a b", "/a\r\nX-Injected: 1", "/caf\u{E9}", "/\u{0}", "/tab\t"] {
            expectRefusal(RequestHead(method: .get, target: target, host: "h"), .invalidRequestTarget)
        }
    }

    @Test func refusesBadHost() {
        for host in ["", "h\r\nX-Injected: 1", "a b", "h\u{0}"] {
            expectRefusal(RequestHead(method: .get, target: "/", host: host), .invalidHost)
        }
    }

    @Test func refusesControlBytesInValues() throws {
        // swift-http-types turns CR, LF and NUL into spaces even for lenient values, but keeps
        // other control bytes there: the encoder is the last line of defence.
        for byte: UInt8 in [0x01, 0x1B, 0x7F] {
            let field = HTTPField(name: .accept, lenientValue: [0x61, byte, 0x62])
            let head = RequestHead(method: .get, target: "/", host: "h", headerFields: HTTPFields([field]))
            expectRefusal(head, .invalidFieldValue)
        }
    }

    @Test func refusesNegativeLength() {
        expectRefusal(RequestHead(method: .post, target: "/", host: "h", framing: .contentLength(-1)), .invalidContentLength)
    }

    /// OWS is SP and HTAB only (RFC 9110 §5.6.3): other white space and inner spaces stay.
    @Test func trimmingWhitespaceDropsOnlyOuterSpacesAndTabs() {
        #expect(HTTPSyntax.trimmingWhitespace(" \t text/html \t") == "text/html")
        #expect(HTTPSyntax.trimmingWhitespace("a b") == "a b")
        #expect(HTTPSyntax.trimmingWhitespace(" \t ") == "")
        #expect(HTTPSyntax.trimmingWhitespace("") == "")
        #expect(HTTPSyntax.trimmingWhitespace("\u{A0}caf\u{E9}\n") == "\u{A0}caf\u{E9}\n")
        #expect(HTTPSyntax.trimmingWhitespace(" caf\u{E9} ") == "caf\u{E9}")
        #expect(HTTPSyntax.trimmingWhitespace(Substring(" x ").utf8).elementsEqual("x".utf8))
    }

    /// swift-http-types can't build a method, a name or a CR/LF/NUL value that breaks the
    /// grammar, so the encoder's checks for those are exercised on the shared validators.
    @Test func validatorsRefuseWhatTheTypesCannotHold() {
        #expect(!HTTPSyntax.isToken(Array("GE T".utf8)))
        #expect(!HTTPSyntax.isToken(Array("GET\r\n".utf8)))
        #expect(!HTTPSyntax.isToken([UInt8]()))
        #expect(HTTPSyntax.isToken(Array("M-SEARCH".utf8)))
        #expect(!HTTPSyntax.isToken(Array(":authority".utf8)))
        #expect(!HTTPSyntax.isToken(Array("X(A)".utf8)))
        for bad: [UInt8] in [[0x61, 0x0D, 0x62], [0x61, 0x0A], [0x00], [0x61, 0x0D, 0x0A, 0x62]] {
            #expect(!HTTPSyntax.isFieldValue(bad))
        }
        #expect(HTTPSyntax.isFieldValue(Array("a\tb c \u{E9}".utf8)))
        #expect(!HTTPSyntax.isRequestTarget(Array("/a b".utf8)))
    }

    /// The string forms read the string's own storage: small (inline) and large (heap)
    /// strings, and one made from a substring, answer as the byte forms do.
    @Test func stringFormsAnswerAsTheByteForms() {
        let long = "/" + String(repeating: "segment/", count: 8) + "end?q=1"
        let samples = ["GET", "M-SEARCH", "GE T", "", ":authority", "X(A)", "/a b", "/", "/1k.bin", long,
                       long + " ", "caf\u{E9}", String("xx/ok?a=b".dropFirst(2)), "a\u{0}b", "tab\there"]
        for text in samples {
            #expect(HTTPSyntax.isToken(text) == HTTPSyntax.isToken(Array(text.utf8)), "\(text)")
            #expect(HTTPSyntax.isRequestTarget(text) == HTTPSyntax.isRequestTarget(Array(text.utf8)), "\(text)")
            var buffer: [UInt8] = [0x2A]
            HTTPSyntax.append(text, to: &buffer)
            #expect(buffer == [0x2A] + Array(text.utf8), "\(text)")
        }
    }
}
