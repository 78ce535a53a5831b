#if canImport(Glibc)
import Glibc
#endif
import FerryEngine
import FerrySession
import FoundationEssentials

/// A `multipart/form-data` body (RFC 7578) built part by part: AFNetworking's
/// `AFMultipartFormData` protocol and its `AFStreamingMultipartFormData`.
///
/// Nothing is read when a part is added: a file is checked (it exists, is a regular file, can
/// be read) and its size noted, and the body is produced later by ``bodyStream`` in slices, so
/// memory stays flat whatever the size of the files. The exact length is known up front
/// (``contentLength``) and sent as `Content-Length`; a file whose size changed between adding
/// and sending fails the upload instead of sending a body of another length.
///
/// Field and file names go into `Content-Disposition` as browsers and curl write them (the
/// WHATWG HTML standard's form encoding, which RFC 7578 §4.2 points to): `"` becomes `%22`,
/// CR `%0D`, LF `%0A`, and other characters, non-ASCII included, are sent as raw UTF-8, which
/// every current server reads (RFC 7578 §5.1.1 and §4.2 deprecate `filename*` and RFC 2047
/// words). Ferry also writes the other control characters (but tab) as `%XX`, so no byte of a
/// name can end or break a part header.
///
/// Use it with ``HTTPRequestSerializer/multipartFormRequest(method:url:parameters:constructingBodyWith:)``.
public struct MultipartFormData: Sendable {
    /// AFNetworking's `kAFUploadStream3GSuggestedPacketSize`: 16 KiB.
    public static let uploadStream3GSuggestedPacketSize = 16 * 1024
    /// AFNetworking's `kAFUploadStream3GSuggestedDelay`: 0.2 seconds.
    public static let uploadStream3GSuggestedDelay = Duration.milliseconds(200)

    /// The boundary between parts: `Boundary+` and 32 random hexadecimal digits unless given.
    public let boundary: String
    /// The parts in order, before the body is produced.
    var parts: [MultipartPart] = []
    /// The throttle set by ``throttleBandwidth(packetSize:delay:)``, if any.
    private(set) var throttle: (packetSize: Int, delay: Duration)?

    /// An empty form with a random boundary (128 bits from the system's generator).
    public init() {
        var generator = SystemRandomNumberGenerator()
        let high: UInt64 = generator.next()
        let low: UInt64 = generator.next()
        boundary = "Boundary+" + Self.hex(high) + Self.hex(low)
    }

    /// An empty form with a boundary of the caller's (tests, or a peer that wants a known one).
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` unless `boundary`
    ///   is 1 to 70 characters from RFC 2046's `bchars` (letters, digits, space and
    ///   `'()+_,-./:=?`) and does not end in a space, so it can neither break the
    ///   `Content-Type` field nor a part's delimiter line.
    public init(boundary: String) throws(NetworkError) {
        let bytes = Array(boundary.utf8)
        guard (1...70).contains(bytes.count), bytes.allSatisfy(Self.isBoundaryCharacter),
              bytes.last != UInt8(ascii: " ") else {
            throw NetworkError(.invalidRequest, reason: "Invalid multipart boundary \"\(boundary.prefix(80))\": it must be 1 to 70 "
                + "letters, digits, spaces or '()+_,-./:=? and must not end in a space (RFC 2046)")
        }
        self.boundary = boundary
    }

    /// The exact number of bytes ``bodyStream`` produces: every delimiter, part header and
    /// part body (files at the size they had when added).
    public var contentLength: Int64 {
        guard !parts.isEmpty else { return 0 }
        let delimiters = Int64(boundary.utf8.count + 4) + Int64(parts.count - 1) * Int64(boundary.utf8.count + 6)
            + Int64(boundary.utf8.count + 8)
        return parts.reduce(delimiters) { $0 + Int64($1.head.count) + $1.bodyLength }
    }

    /// The value of `Content-Type` for this body: `multipart/form-data; boundary=…` (quoted
    /// when the boundary has characters a token cannot hold).
    public var contentType: String {
        let isToken = boundary.utf8.allSatisfy { $0 != UInt8(ascii: " ") && !"'(),/:=?".utf8.contains($0) }
        return "multipart/form-data; boundary=" + (isToken ? boundary : "\"\(boundary)\"")
    }

    /// Whether no part was added (a request gets no multipart body then, as in AFNetworking).
    public var isEmpty: Bool { parts.isEmpty }

    /// The body, produced lazily: delimiters and headers from memory, files read in slices
    /// of at most 64 KiB (or packets of the throttle's size) when the consumer asks for them.
    public var bodyStream: MultipartBodyStream { MultipartBodyStream(self) }

    /// The body for a request: ``bodyStream`` with ``contentLength`` as its length. Without a
    /// byte-stream part it is replayable (every iteration starts again from the first byte,
    /// reading the files anew), so a 307 redirect or an answer to a challenge sends it again
    /// by itself; a caller's byte stream can be read once only.
    /// A throttled form's body carries its cap (``RequestBody/maximumBytesPerSecond``).
    public var requestBody: RequestBody {
        // Without a caller's stream, the engine reads the parts itself, on its loop, as it
        // reads an upload file: no hand-off per slice.
        let body: RequestBody = if let segments = Self.engineSegments(segments) {
            .segments(segments, length: contentLength)
        } else {
            .stream(bodyStream, length: contentLength, replayable: !parts.contains { $0.isStream })
        }
        return body.limited(toBytesPerSecond: throttleBytesPerSecond)
    }

    /// The throttle as a rate: a packet per delay; nil without a throttle or a delay.
    var throttleBytesPerSecond: Int64? {
        guard let throttle, throttle.delay > .zero else { return nil }
        let (seconds, attoseconds) = throttle.delay.components
        let delay = Double(seconds) + Double(attoseconds) / 1e18
        return max(1, Int64(min(Double(throttle.packetSize) / delay, Double(Int64.max / 2))))
    }

    /// One piece of the body in order: delimiters and part headers, or a part's body.
    enum Segment {
        case bytes([UInt8])
        case file(path: String, size: Int64, part: String)
        case stream(RequestBody.ByteChunks, length: Int64, part: String)
    }

    /// The body's pieces: each part's delimiter and headers, its body, and the closing delimiter.
    var segments: [Segment] {
        var segments: [Segment] = []
        let boundary = Array(boundary.utf8)
        for (number, part) in parts.enumerated() {
            // RFC 2046 §5.1.1: the CRLF before a delimiter belongs to the delimiter.
            segments.append(.bytes((number == 0 ? [] : Array("\r\n".utf8)) + Array("--".utf8) + boundary + Array("\r\n".utf8) + part.head))
            switch part.body {
            case .bytes(let bytes): segments.append(.bytes(bytes))
            case .file(let path, let size): segments.append(.file(path: path, size: size, part: part.name))
            case .stream(let chunks, let length): segments.append(.stream(chunks, length: length, part: part.name))
            }
        }
        if !parts.isEmpty {
            segments.append(.bytes(Array("\r\n--".utf8) + boundary + Array("--\r\n".utf8)))
        }
        return segments
    }

    /// `segments` as the engine sends them, adjacent bytes joined; nil when one is a stream.
    static func engineSegments(_ segments: [Segment]) -> [BodySegment]? {
        var result: [BodySegment] = []
        for segment in segments {
            switch segment {
            case .stream: return nil
            case .file(let path, let size, _): result.append(.file(path: path, size: size))
            case .bytes(let bytes):
                if case .bytes(let previous)? = result.last {
                    result[result.count - 1] = .bytes(previous + bytes)
                } else {
                    result.append(.bytes(bytes))
                }
            }
        }
        return result
    }

    // MARK: - Parts

    /// A file part named after the file (its last path component), its type from its
    /// extension (``mimeType(forPathExtension:)``): AFNetworking's
    /// `appendPartWithFileURL:name:error:`.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/cannotOpenFile`` naming the path and
    ///   the system's reason when the file is missing, unreadable, a directory or not a regular
    ///   file; ``NetworkError/Code/badURL`` when `fileURL` is not a file URL.
    public mutating func appendPart(fileURL: URL, name: String) throws(NetworkError) {
        try appendPart(fileURL: fileURL, name: name, fileName: fileURL.lastPathComponent,
                       mimeType: Self.mimeType(forPathExtension: fileURL.pathExtension))
    }

    /// A file part with the file name and type given: `appendPartWithFileURL:name:fileName:mimeType:error:`.
    /// The file is not read now; its size is noted for ``contentLength``.
    /// - Throws: ``NetworkError``: ``NetworkError/Code/badURL`` when `fileURL` is not a file
    ///   URL (an `https` URL is not read from the disk at its path), as AFNetworking;
    ///   ``NetworkError/Code/cannotOpenFile`` as for ``appendPart(fileURL:name:)``;
    ///   ``NetworkError/Code/invalidRequest`` for a type with CR, LF or another control character.
    public mutating func appendPart(fileURL: URL, name: String, fileName: String, mimeType: String) throws(NetworkError) {
        guard fileURL.isFileURL else {
            throw NetworkError(.badURL, reason: "Expected a file URL for the form part \"\(name)\", not \(fileURL.absoluteString)")
        }
        let path = fileURL.path(percentEncoded: false)
        let size = try Self.regularFileSize(path)
        let head = try MultipartPart.head(name: name, fileName: fileName, mimeType: mimeType)
        parts.append(MultipartPart(name: name, head: head, body: .file(path: path, size: size)))
    }

    /// A part whose bytes come from an async sequence of chunks of a known total length
    /// (AFNetworking's `appendPartWithInputStream:name:fileName:length:mimeType:`). The
    /// sequence is iterated once, when the body is sent; if it ends early or gives more than
    /// `length` bytes, the upload fails rather than send a body of another length.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` for a negative
    ///   length or a type with CR, LF or another control character.
    public mutating func appendPart<Chunks: AsyncSequence & Sendable>(
        byteStream: Chunks, name: String, fileName: String, length: Int64, mimeType: String
    ) throws(NetworkError) where Chunks.Element == [UInt8] {
        guard length >= 0 else {
            throw NetworkError(.invalidRequest, reason: "The byte stream of multipart part \"\(name.prefix(80))\" has a negative length (\(length))")
        }
        let head = try MultipartPart.head(name: name, fileName: fileName, mimeType: mimeType)
        parts.append(MultipartPart(name: name, head: head, body: .stream(ErasedByteChunks(byteStream), length: length)))
    }

    /// A file part from bytes in memory: `appendPartWithFileData:name:fileName:mimeType:`.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` for a type with
    ///   CR, LF or another control character.
    public mutating func appendPart(fileData: some Collection<UInt8>, name: String, fileName: String, mimeType: String)
        throws(NetworkError) {
        let head = try MultipartPart.head(name: name, fileName: fileName, mimeType: mimeType)
        parts.append(MultipartPart(name: name, head: head, body: .bytes(Array(fileData))))
    }

    /// A form field: `Content-Disposition: form-data; name="…"` and the bytes, no type
    /// (`appendPartWithFormData:name:`). Text is `value.utf8`.
    public mutating func appendPart(formData: some Collection<UInt8>, name: String) {
        parts.append(MultipartPart(name: name, head: MultipartPart.head(name: name), body: .bytes(Array(formData))))
    }

    /// A part with headers of the caller's, in order, and a body: `appendPartWithHeaders:body:`.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` for a name that is
    ///   not a token or a value with CR, LF or NUL (``NetworkRequest``'s rules).
    public mutating func appendPart(headers: [(name: String, value: String)], body: some Collection<UInt8>) throws(NetworkError) {
        let head = try MultipartPart.head(headers: headers)
        parts.append(MultipartPart(name: headers.first { $0.name.lowercased() == "content-disposition" }?.value ?? "(headers)",
                                   head: head, body: .bytes(Array(body))))
    }

    /// ``appendPart(headers:body:)`` with the headers written as a dictionary literal, in order.
    public mutating func appendPart(headers: KeyValuePairs<String, String>, body: some Collection<UInt8>) throws(NetworkError) {
        try appendPart(headers: headers.map { (name: $0.key, value: $0.value) }, body: body)
    }

    /// Sends the body no faster than `packetSize` bytes per `delay` (AFNetworking's
    /// `throttleBandwidthWithPacketSize:delay:`, for slow links): ``requestBody`` carries that
    /// rate as its cap, which the connection keeps to on its event loop (no thread sleeps), and
    /// ``bodyStream`` produces packets of at most `packetSize` bytes. A size below 1 counts as
    /// 1; a delay of zero or less means no cap.
    public mutating func throttleBandwidth(packetSize: Int = MultipartFormData.uploadStream3GSuggestedPacketSize,
                                           delay: Duration = MultipartFormData.uploadStream3GSuggestedDelay) {
        throttle = (max(1, packetSize), max(.zero, delay))
    }

    /// `parameters` as form fields before the parts already added, with the query-string
    /// rules' names (`a[b]`, `a[]`) and values (a null is an empty field): how AFNetworking's
    /// multipart request writes its parameters.
    mutating func prependFields(from parameters: Parameters) {
        let fields = QueryStringSerialization.pairs(from: parameters).map { pair in
            MultipartPart(name: pair.name, head: MultipartPart.head(name: pair.name), body: .bytes(Array((pair.value ?? "").utf8)))
        }
        parts.insert(contentsOf: fields, at: 0)
    }

    // MARK: - Helpers

    /// The size of the regular file at `path`, checked readable now so that a mistake shows
    /// when the part is added, not when the upload is half sent.
    static func regularFileSize(_ path: String) throws(NetworkError) -> Int64 {
        func failure(_ errno: Int32, _ syscall: String) -> NetworkError {
            let cause = SystemError(errno: errno, syscall: syscall)
            return NetworkError(.cannotOpenFile, reason: "Cannot add \(path) to the multipart form: \(cause.errnoText)",
                                underlyingError: cause)
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(errno, "stat") }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw failure(EISDIR, "stat")
        default:
            let cause = SystemError(errno: EINVAL, syscall: "stat (not a regular file)")
            throw NetworkError(.cannotOpenFile, reason: "Cannot add \(path) to the multipart form: it is not a regular file",
                               underlyingError: cause)
        }
        guard access(path, R_OK) == 0 else { throw failure(errno, "access") }
        return Int64(info.st_size)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    // RFC 2046 §5.1.1: bchars := bcharsnospace / " "; bcharsnospace := DIGIT / ALPHA / "'" /
    // "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?".
    private static func isBoundaryCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "'()+_,-./:=? ".utf8.contains(byte)
        }
    }
}
