import FerryIO
import FerryWire

/// The bytes of one request still to be written, and where more come from.
///
/// The head and the first body piece go out in one `writev`; a file is streamed through one
/// reused buffer; a streamed body holds at most one chunk (plus its framing) at a time.
struct OutboundQueue {
    /// Largest slice of an upload file read at once.
    static let fileSliceSize = 64 * 1024

    /// What one step achieved.
    enum Step {
        /// Bytes went out; `bodyBytes` of them were body (not head or chunk framing).
        case wrote(bodyBytes: Int)
        /// The socket is full: wait for writable.
        case blocked
        /// The next bytes are body bytes and the caller's allowance for them is spent (an
        /// upload cap): wait until it grows.
        case rateLimited
        /// Waiting for the body source; `needsRequest`: ask it for the next chunk now.
        case waitingForSource(needsRequest: Bool)
        /// Every byte of the request is written.
        case finished
        /// The body source failed or broke its promised length.
        case failed(EngineError)
        /// The socket (or TLS on it) failed.
        case transportFailed(TransportFailure)
    }

    private struct Piece {
        var bytes: [UInt8]
        var count: Int
        var isBody: Bool
    }

    private enum Source {
        // Nothing more to produce once the pieces are written.
        case done
        // Slices of the exchange's upload file.
        case file
        // Chunks from a BodyChunkSource.
        case stream(chunked: Bool, length: Int64?, sent: Int64, awaiting: Bool, ended: Bool)
        // The segments of the exchange's body from `index` on (`file`: the one being read).
        case segments(index: Int, file: UploadFile?)
        // The source failed.
        case failed(EngineError)
        // Writing stopped early (the response already ended).
        case abandoned
        // The body waits for `100 Continue` (`Expect: 100-continue`).
        case held
    }

    private var pieces: [Piece] = []
    private var offset = 0
    private var source: Source = .done
    private var fileBuffer: [UInt8] = []
    /// While the body is held: its first piece and its source, given back by ``releaseBody()``.
    private var heldBody: (pieces: [Piece], source: Source)?

    /// Whether the body waits for ``releaseBody()``.
    var isHoldingBody: Bool { heldBody != nil }

    /// Begins a request: its head, and its body source. With `holdingBody`, only the head goes
    /// out until ``releaseBody()``.
    mutating func start(head: [UInt8], exchange: Exchange, holdingBody: Bool = false) {
        heldBody = nil
        pieces.removeAll(keepingCapacity: true)
        offset = 0
        pieces.append(Piece(bytes: head, count: head.count, isBody: false))
        switch exchange.request.body {
        case .none:
            source = .done
        case .bytes(let bytes):
            if !bytes.isEmpty { pieces.append(Piece(bytes: bytes, count: bytes.count, isBody: true)) }
            source = .done
        case .file:
            source = .file
        case .stream(_, let length):
            source = .stream(chunked: length == nil, length: length, sent: 0, awaiting: false, ended: false)
        case .segments:
            source = .segments(index: 0, file: nil)
        }
        if holdingBody {
            heldBody = (Array(pieces.dropFirst()), source)
            pieces.removeSubrange(1...)
            source = .held
        }
    }

    /// Lets a held body go (the server sent `100 Continue`, or the wait ran out).
    mutating func releaseBody() {
        guard let held = heldBody, case .held = source else { return }
        heldBody = nil
        pieces.append(contentsOf: held.pieces)
        source = held.source
    }

    /// Stops producing; what is queued is dropped.
    mutating func abandon() {
        pieces.removeAll(keepingCapacity: true)
        heldBody = nil
        source = .abandoned
    }

    /// Writes what it can, or refills from the source.
    /// - Parameter bodyAllowance: The most body bytes this step may write (an upload cap's
    ///   available bytes); the head and chunk framing are not counted.
    mutating func step(transport: Transport, exchange: Exchange, bodyAllowance: Int = .max) -> Step {
        if pieces.isEmpty {
            switch refill(exchange) {
            case .some(let step): return step
            case .none: break
            }
        }
        return writeOnce(transport, bodyAllowance: bodyAllowance)
    }

    /// A chunk (or the end, or an error) arrived from a streamed body.
    mutating func chunkArrived(_ result: Result<[UInt8]?, EngineError>) {
        guard case .stream(let chunked, let length, var sent, _, _) = source else { return }
        switch result {
        case .failure(let error):
            source = .failed(error)
        case .success(nil):
            if let length, sent != length {
                source = .failed(EngineError(.requestBodyFailed("stream ended after \(sent) of \(length) bytes")))
                return
            }
            if chunked { appendFraming(RequestEncoder.lastChunk) }
            source = .stream(chunked: chunked, length: length, sent: sent, awaiting: false, ended: true)
        case .success(let chunk?):
            sent += Int64(chunk.count)
            if let length, sent > length {
                source = .failed(EngineError(.requestBodyFailed("stream produced more than its \(length) bytes")))
                return
            }
            if !chunk.isEmpty {
                if chunked {
                    var header: [UInt8] = []
                    RequestEncoder.encodeChunkHeader(size: chunk.count, into: &header)
                    appendFraming(header)
                }
                pieces.append(Piece(bytes: chunk, count: chunk.count, isBody: true))
                if chunked { appendFraming(RequestEncoder.chunkTerminator) }
            }
            source = .stream(chunked: chunked, length: length, sent: sent, awaiting: false, ended: false)
        }
    }

    // MARK: - Private

    private mutating func appendFraming(_ bytes: [UInt8]) {
        pieces.append(Piece(bytes: bytes, count: bytes.count, isBody: false))
    }

    /// Returns a step when nothing can be written now, `nil` when pieces were added.
    private mutating func refill(_ exchange: Exchange) -> Step? {
        switch source {
        case .done, .abandoned:
            return .finished
        case .held:
            return .waitingForSource(needsRequest: false)
        case .failed(let error):
            return .failed(error)
        case .file:
            guard let file = exchange.file else { return .finished }
            switch appendSlice(of: file) {
            case .failure(let error): return .failed(error)
            case .success(false):
                source = .done
                return .finished
            case .success(true):
                return nil
            }
        case .segments(let index, let file):
            return refillSegment(exchange, index: index, file: file)
        case .stream(let chunked, let length, let sent, let awaiting, let ended):
            // A stream that announced its length is complete once that many bytes went out;
            // waiting for its end would let the response overtake the request.
            if ended || (length != nil && sent == length) { return .finished }
            if awaiting { return .waitingForSource(needsRequest: false) }
            source = .stream(chunked: chunked, length: length, sent: sent, awaiting: true, ended: false)
            return .waitingForSource(needsRequest: true)
        }
    }

    /// Adds the next piece of a segmented body: the bytes of segment `index`, or the next slice
    /// of its file (opened on first use, its size checked against the one announced).
    private mutating func refillSegment(_ exchange: Exchange, index: Int, file: UploadFile?) -> Step? {
        guard case .segments(let segments, _) = exchange.request.body else { return .finished }
        var index = index, file = file
        while index < segments.count {
            switch segments[index] {
            case .bytes(let bytes):
                index += 1
                guard !bytes.isEmpty else { continue }
                source = .segments(index: index, file: nil)
                pieces.append(Piece(bytes: bytes, count: bytes.count, isBody: true))
                return nil
            case .file(let path, let size):
                if file == nil {
                    switch UploadFile.open(path: path) {
                    case .failure(let error): return fail(EngineError(.fileReadFailed(path: path, error)))
                    case .success(let opened) where opened.size != size:
                        return fail(EngineError(.requestBodyFailed(
                            "\(path) is \(opened.size) bytes now, not the \(size) it had when the body was made")))
                    case .success(let opened): file = opened
                    }
                }
                guard let open = file else { continue }
                switch appendSlice(of: open) {
                case .failure(let error):
                    return fail(error)
                case .success(false):
                    index += 1
                    file = nil
                case .success(true):
                    source = .segments(index: index, file: open)
                    return nil
                }
            }
        }
        source = .done
        return .finished
    }

    /// Reads `file`'s next slice into the one reused buffer and queues it: true when a slice
    /// was queued, false at the file's end.
    private mutating func appendSlice(of file: UploadFile) -> Result<Bool, EngineError> {
        if fileBuffer.isEmpty { fileBuffer = [UInt8](repeating: 0, count: Self.fileSliceSize) }
        var buffer = fileBuffer
        fileBuffer = []
        defer { fileBuffer = buffer }
        switch file.read(into: &buffer) {
        case .failure(let error): return .failure(EngineError(.fileReadFailed(path: file.path, error)))
        case .success(0): return .success(false)
        case .success(let count):
            pieces.append(Piece(bytes: buffer, count: count, isBody: true))
            return .success(true)
        }
    }

    private mutating func fail(_ error: EngineError) -> Step {
        source = .failed(error)
        return .failed(error)
    }

    private mutating func writeOnce(_ transport: Transport, bodyAllowance: Int) -> Step {
        let first = pieces[0]
        let start = offset
        // Where each piece's write stops: its end, or where the body allowance runs out.
        let firstEnd = first.isBody && first.count - start > bodyAllowance ? start + bodyAllowance : first.count
        guard firstEnd > start else { return .rateLimited }
        let allowanceLeft = first.isBody ? bodyAllowance - (firstEnd - start) : bodyAllowance
        var second = firstEnd == first.count && pieces.count > 1 ? pieces[1] : nil
        var secondEnd = 0
        if let next = second {
            secondEnd = next.isBody ? min(next.count, allowanceLeft) : next.count
            if secondEnd == 0 { second = nil }
        }
        // Typed throws do not pass through withUnsafeBytes, so the outcome is carried out.
        var outcome: Result<IOResult<Int>, TransportFailure> = .success(.wouldBlock)
        first.bytes.withUnsafeBytes { a in
            let head = UnsafeRawBufferPointer(rebasing: a[start..<firstEnd])
            do throws(TransportFailure) {
                guard let second else { return outcome = .success(try transport.writev([head])) }
                second.bytes.withUnsafeBytes { b in
                    do throws(TransportFailure) {
                        outcome = .success(try transport.writev([head, UnsafeRawBufferPointer(rebasing: b[0..<secondEnd])]))
                    } catch {
                        outcome = .failure(error)
                    }
                }
            } catch {
                outcome = .failure(error)
            }
        }
        let result: IOResult<Int>
        switch outcome {
        case .success(let value): result = value
        case .failure(let error): return .transportFailed(error)
        }
        guard case .processed(var written) = result else { return .blocked }
        var bodyBytes = 0
        while written > 0, !pieces.isEmpty {
            let left = pieces[0].count - offset
            let taken = min(left, written)
            if pieces[0].isBody { bodyBytes += taken }
            written -= taken
            if taken == left {
                pieces.removeFirst()
                offset = 0
            } else {
                offset += taken
            }
        }
        return .wrote(bodyBytes: bodyBytes)
    }
}
