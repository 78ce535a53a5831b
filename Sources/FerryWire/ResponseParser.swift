import HTTPTypes

/// An incremental, zero-copy HTTP/1.1 response parser (RFC 9112).
///
/// Feed it whatever bytes arrived; it returns one ``Event`` per call and advances the index
/// past what it used. Call ``parse(_:from:)`` until it returns ``Event/needMoreData``. Body
/// bytes are reported as ranges of the caller's buffer and never copied; only a head or
/// trailer line split across reads is kept, in one reused buffer bounded by
/// ``ParserLimits/maxLineLength``.
///
/// Offsets in errors and ``bytesConsumedInResponse`` count from the first byte received after
/// ``expectResponse(to:)``, interim (1xx) responses included, so `incompleteHead` at offset 0
/// always means the server sent nothing at all.
///
/// Leniency, chosen deliberately and nowhere else:
/// - a bare LF ends a head or trailer line (RFC 9112 §2.2 allows a recipient to accept it);
///   chunk-size lines and the CRLF after chunk data must be exact, since chunk framing is where
///   desynchronisation attacks live;
/// - a status line may stop right after the code, with no SP and no reason (RFC 9112 §4 tells
///   clients to ignore the reason anyway);
/// - HTTP/1.x with x > 1 is read as HTTP/1.1 (RFC 9110 §2.5).
/// obs-fold is refused (`obsoleteLineFolding`) rather than unfolded: no server Ferry talks to
/// needs it, and refusing keeps field values exactly as sent.
package struct ResponseParser: Sendable {
    /// What one call to ``ResponseParser/parse(_:from:)`` found.
    package enum Event: Sendable, Equatable {
        /// All input was consumed (`index == input.count`); call again with more bytes.
        case needMoreData
        /// A final response head (or a 101). Interim 1xx heads are consumed silently.
        case head(ResponseHead)
        /// Body bytes: a range of the buffer passed to this call.
        case body(Range<Int>)
        /// The response is complete. The index points just past it; for a 101 or a 2xx to
        /// CONNECT the bytes from there on belong to the new protocol.
        case end(trailers: HTTPFields)
    }

    /// Where the parser is. Line states may hold a partial line in `lineBuffer`.
    enum State: Sendable {
        /// No response expected; any byte is `unexpectedData`.
        case idle
        /// Reading the status line (RFC 9112 §4).
        case statusLine
        /// Reading field lines up to the empty line (RFC 9112 §5).
        case fieldLines
        /// Reading a Content-Length body.
        case fixedBody(remaining: Int64)
        /// Reading chunk-size hex digits (RFC 9112 §7.1).
        case chunkSize(size: Int64, digits: Int)
        /// Reading chunk extensions after the size (RFC 9112 §7.1.1).
        case chunkExtension(size: Int64, bytes: Int, sawSemicolon: Bool)
        /// Saw the CR ending a chunk-size line; LF must follow.
        case chunkSizeLF(size: Int64)
        /// Reading chunk data.
        case chunkData(remaining: Int64)
        /// Chunk data done; CR must follow.
        case chunkDataCR
        /// Saw the CR after chunk data; LF must follow.
        case chunkDataLF
        /// Reading the trailer section (RFC 9112 §7.1.2).
        case trailerLines
        /// Reading a body delimited by connection close (RFC 9112 §6.3 rule 8).
        case untilClose
        /// The message is complete; the next call reports `.end`.
        case endPending
        /// A previous call failed; every later call repeats the error.
        case failed(HTTPParseError)
    }

    /// Where a complete line's content (without its line end) is.
    enum LineLocation {
        /// In the caller's buffer.
        case input(Range<Int>)
        /// In `lineBuffer`, because it arrived in pieces.
        case buffered
    }

    /// The limits this parser enforces.
    package private(set) var limits: ParserLimits
    /// `maxFieldCount`, capped below what `HTTPFields` itself accepts (it traps at 65,535).
    private(set) var maxFieldCount: Int
    /// `maxLineLength`, clamped so arithmetic on it can't overflow.
    private(set) var maxLineLength: Int

    /// Where the parser is.
    var state: State = .idle {
        didSet {
            switch state {
            case .statusLine, .fieldLines: isReadingHead = true
            default: isReadingHead = false
            }
        }
    }
    // What a connection asks its parser on every read is stored, not computed: a getter called
    // across the module boundary on a parser kept in a class copied the whole parser.
    /// Whether the parser is reading a response head: its status line or field lines.
    package private(set) var isReadingHead = false
    /// Bytes consumed since ``expectResponse(to:)``, interim responses included.
    package private(set) var bytesConsumedInResponse = 0
    /// The method of the request being answered (HEAD and CONNECT change framing).
    var requestMethod: HTTPRequest.Method = .get
    /// Whether a `100 Continue` was consumed since ``expectResponse(to:)``: it tells a client
    /// holding its body that the server wants it (RFC 9110 §10.1.1). Other interim responses
    /// (102, 103) say nothing about the body.
    package internal(set) var receivedContinue = false
    /// Offset of the first byte of the current line.
    var lineStart = 0
    /// The most capacity ``lineBuffer`` and ``fieldLineOffsets`` keep between responses.
    static let keptBufferCapacity = 16 * 1024
    /// Offset of the first byte of the current head or trailer section.
    var sectionStart = 0
    /// The part of a line that arrived in an earlier buffer. Reused; at most maxLineLength + 1.
    var lineBuffer: [UInt8] = []
    /// Fields of the head being read, then the trailers.
    var fields = HTTPFields()
    /// Offset of each field line in `fields`, so a framing error points at its field.
    var fieldLineOffsets: [Int] = []
    /// The version of the status line being read.
    var version = HTTPVersion.http1_1
    /// The status of the status line being read.
    var status = HTTPResponse.Status.ok

    /// Creates an idle parser.
    /// - Parameter limits: The bounds to enforce.
    package init(limits: ParserLimits = .default) {
        self.limits = limits
        self.maxFieldCount = Self.fieldCountCap(limits)
        self.maxLineLength = Self.lineLengthCap(limits)
    }

    /// Enforces `limits` from now on, keeping the buffers a new parser would allocate again (a
    /// connection's parser serves each of its exchanges). Call it between responses, before
    /// ``expectResponse(to:)``: tighter limits would also apply to a response half read.
    package mutating func enforce(_ limits: ParserLimits) {
        self.limits = limits
        maxFieldCount = Self.fieldCountCap(limits)
        maxLineLength = Self.lineLengthCap(limits)
    }

    private static func fieldCountCap(_ limits: ParserLimits) -> Int { min(max(limits.maxFieldCount, 0), 65_000) }
    private static func lineLengthCap(_ limits: ParserLimits) -> Int { min(max(limits.maxLineLength, 0), Int.max / 4) }

    /// Whether no response is in progress (before ``expectResponse(to:)`` or after `.end`).
    package var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// Prepares for the response to a request sent with `method`. Call before each response;
    /// it also clears a failed state.
    /// - Parameter method: The request method (HEAD and CONNECT change framing, RFC 9112 §6.3).
    package mutating func expectResponse(to method: HTTPRequest.Method) {
        requestMethod = method
        state = .statusLine
        bytesConsumedInResponse = 0
        receivedContinue = false
        lineStart = 0
        sectionStart = 0
        // A large head may have grown these (lines up to the limit, thousands of fields): a
        // connection kept for the next request does not keep that memory.
        if lineBuffer.capacity > Self.keptBufferCapacity {
            lineBuffer = []
        } else {
            lineBuffer.removeAll(keepingCapacity: true)
        }
        fields = HTTPFields()
        if fieldLineOffsets.capacity > Self.keptBufferCapacity / MemoryLayout<Int>.stride {
            fieldLineOffsets = []
        } else {
            fieldLineOffsets.removeAll(keepingCapacity: true)
        }
    }

    /// Parses from `input[index...]`, advancing `index` past what it used.
    ///
    /// - Parameters:
    ///   - input: The bytes received; body ranges in the returned event index into it.
    ///   - index: Where to start; on return, the first byte not yet used.
    /// - Returns: The next event; ``Event/needMoreData`` once all of `input` is used.
    /// - Throws: ``HTTPParseError`` with the kind and offset of the first offending byte. After
    ///   an error the parser keeps failing until ``expectResponse(to:)``.
    package mutating func parse(
        _ input: UnsafeRawBufferPointer,
        from index: inout Int
    ) throws(HTTPParseError) -> Event {
        precondition(index >= 0 && index <= input.count, "index outside input")
        let base = bytesConsumedInResponse &- index
        defer { bytesConsumedInResponse = base &+ index }
        do throws(HTTPParseError) {
            while true {
                if let event = try step(input, &index, base) { return event }
            }
        } catch {
            state = .failed(error)
            throw error
        }
    }

    /// How many of the next bytes on the connection are body data for sure (the rest of a
    /// Content-Length body or of a chunk; `Int64.max` for a body that runs until the connection
    /// closes), or 0 when the next bytes are not plain body data. Up to this many may be read
    /// straight into a consumer's buffer, past the parser, and then reported with
    /// ``bodyBytesReadDirectly(_:)``.
    package var bodyBytesReadableDirectly: Int64 {
        switch state {
        case .fixedBody(let remaining), .chunkData(let remaining): remaining
        case .untilClose: .max
        default: 0
        }
    }

    /// Counts `count` body bytes that were read past the parser (at most
    /// ``bodyBytesReadableDirectly``), as if parsed: a body or chunk they complete moves on to
    /// its end, which the next ``parse(_:from:)`` reports (with empty input if need be).
    package mutating func bodyBytesReadDirectly(_ count: Int) {
        let taken = Int64(count)
        precondition(taken >= 0 && taken <= bodyBytesReadableDirectly, "more body bytes than the framing allows")
        bytesConsumedInResponse &+= count
        switch state {
        case .fixedBody(let remaining): state = remaining == taken ? .endPending : .fixedBody(remaining: remaining - taken)
        case .chunkData(let remaining): state = remaining == taken ? .chunkDataCR : .chunkData(remaining: remaining - taken)
        default: break
        }
    }

    /// Reports that the connection delivered its last byte.
    ///
    /// - Returns: `.end` if that ends the response (a body delimited by close, or an end not
    ///   yet reported); ``Event/needMoreData`` if no response was in progress.
    /// - Throws: `incompleteHead` (at offset 0 if no byte of the response arrived) or
    ///   `incompleteBody`, at the offset where more bytes were needed.
    package mutating func inputEnded() throws(HTTPParseError) -> Event {
        switch state {
        case .failed(let error):
            throw error
        case .idle:
            return .needMoreData
        case .endPending, .untilClose:
            state = .idle
            return .end(trailers: takeFields())
        case .statusLine, .fieldLines:
            let error = HTTPParseError(.incompleteHead, offset: bytesConsumedInResponse)
            state = .failed(error)
            throw error
        case .fixedBody, .chunkSize, .chunkExtension, .chunkSizeLF, .chunkData, .chunkDataCR, .chunkDataLF,
            .trailerLines:
            let error = HTTPParseError(.incompleteBody, offset: bytesConsumedInResponse)
            state = .failed(error)
            throw error
        }
    }

    // MARK: - Dispatch

    /// Advances by one state transition; `nil` means "keep going".
    mutating func step(
        _ input: UnsafeRawBufferPointer,
        _ index: inout Int,
        _ base: Int
    ) throws(HTTPParseError) -> Event? {
        switch state {
        case .failed(let error):
            throw error
        case .idle:
            // No pipelining: a byte nobody asked for means the connection is out of step.
            guard index == input.count else { throw HTTPParseError(.unexpectedData, offset: base &+ index) }
            return .needMoreData
        case .endPending:
            state = .idle
            return .end(trailers: takeFields())
        case .statusLine, .fieldLines, .trailerLines:
            guard index < input.count else { return .needMoreData }
            return try readLine(input, &index, base)
        case .fixedBody(let remaining):
            guard index < input.count else { return .needMoreData }
            let (range, left) = Self.takeBody(upTo: remaining, of: input, at: &index)
            state = left == 0 ? .endPending : .fixedBody(remaining: left)
            return .body(range)
        case .untilClose:
            guard index < input.count else { return .needMoreData }
            let range = index..<input.count
            index = input.count
            return .body(range)
        case .chunkSize, .chunkExtension, .chunkSizeLF, .chunkData, .chunkDataCR, .chunkDataLF:
            return try stepChunked(input, &index, base)
        }
    }

    /// Hands over `fields` (the trailers, or an empty set) and starts a fresh one.
    mutating func takeFields() -> HTTPFields {
        let taken = fields
        fields = HTTPFields()
        return taken
    }

    /// Takes up to `remaining` body bytes of `input` from `index` (zero-copy: a range), for a
    /// Content-Length body and for a chunk's data alike.
    /// - Returns: The range taken and how many bytes of the body or chunk are still to come.
    @inline(__always)
    static func takeBody(upTo remaining: Int64, of input: UnsafeRawBufferPointer, at index: inout Int) -> (Range<Int>, Int64) {
        let count = Int(min(remaining, Int64(input.count - index)))
        let range = index..<(index + count)
        index += count
        return (range, remaining - Int64(count))
    }
}
