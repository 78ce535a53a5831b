import FerryEngine
import FerrySession
import FoundationEssentials

/// The bytes of a ``MultipartFormData`` body, produced when they are asked for.
///
/// Delimiters and part headers come from memory; files are opened when their part is reached
/// and read in slices of at most ``maximumChunkSize`` bytes (a throttled form's packet size);
/// a caller's byte stream is passed on in chunks no larger. So memory holds about one chunk
/// whatever the size of the files. The chunks add up to exactly
/// ``MultipartFormData/contentLength`` bytes, or the iteration throws a ``NetworkError``:
/// ``NetworkError/Code/cannotOpenFile`` for a file that can no longer be opened,
/// ``NetworkError/Code/requestBodyFailed`` for a file whose size changed since its part was
/// added or a byte stream that ended early or gave too much. (A throttle's pace is kept by the
/// connection that sends the body, not here: see ``MultipartFormData/requestBody``.)
///
/// Each iteration starts from the first byte again (files are reopened); a part added with a
/// byte stream iterates that stream again, so it is sent once unless the stream can repeat.
public struct MultipartBodyStream: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = [UInt8]
    /// Always a ``NetworkError``.
    public typealias Failure = any Error

    /// The largest chunk produced when the form is not throttled: 64 KiB.
    public static let defaultChunkSize = 64 * 1024

    private let form: MultipartFormData

    init(_ form: MultipartFormData) { self.form = form }

    /// The largest chunk the stream produces: the throttle's packet size, else 64 KiB.
    public var maximumChunkSize: Int { form.throttle?.packetSize ?? Self.defaultChunkSize }

    /// Starts producing the body from its first byte.
    public func makeAsyncIterator() -> Iterator { Iterator(form, chunkSize: maximumChunkSize) }

    /// Produces the chunks one at a time; not shared between tasks.
    public struct Iterator: AsyncIteratorProtocol {
        /// A chunk of the body.
        public typealias Element = [UInt8]
        /// Always a ``NetworkError``.
        public typealias Failure = any Error

        private let segments: [MultipartFormData.Segment]
        private let chunkSize: Int
        private let total: Int64
        private var index = 0
        private var produced: Int64 = 0
        // The segment being read: an offset in bytes, an open file, or a caller's iterator
        // with what it has given so far and the rest of its last chunk.
        private var byteOffset = 0
        private var file: UploadFile?
        private var chunks: (any AsyncIteratorProtocol<[UInt8], any Error>)?
        private var streamed: Int64 = 0
        private var pending: [UInt8] = []
        private var pendingOffset = 0

        init(_ form: MultipartFormData, chunkSize: Int) {
            segments = form.segments
            self.chunkSize = chunkSize
            self.total = form.contentLength
        }

        /// The next chunk (never empty), or nil after the closing delimiter.
        /// - Throws: ``NetworkError``, as the sequence says.
        public mutating func next() async throws -> [UInt8]? {
            try await nextChunk()
        }

        private mutating func nextChunk() async throws(NetworkError) -> [UInt8]? {
            while index < segments.count {
                let chunk: [UInt8]?
                switch segments[index] {
                case .bytes: chunk = nextBytes()
                case .file(let path, let size, let part): chunk = try nextFileSlice(path: path, size: size, part: part)
                case .stream(let sequence, let length, let part): chunk = try await nextStreamed(sequence, length: length, part: part)
                }
                if let chunk {
                    produced += Int64(chunk.count)
                    return chunk
                }
            }
            guard produced == total else {
                throw NetworkError(.internalInconsistency,
                                   reason: "The multipart body came to \(produced) bytes instead of the \(total) announced")
            }
            return nil
        }

        /// Up to a chunk from this and the following in-memory segments, or nil when they held nothing.
        private mutating func nextBytes() -> [UInt8]? {
            var chunk: [UInt8] = []
            while index < segments.count, chunk.count < chunkSize, case .bytes(let bytes) = segments[index] {
                let count = Swift.min(chunkSize - chunk.count, bytes.count - byteOffset)
                chunk += bytes[byteOffset..<(byteOffset + count)]
                byteOffset += count
                if byteOffset == bytes.count {
                    index += 1
                    byteOffset = 0
                }
            }
            return chunk.isEmpty ? nil : chunk
        }

        /// The file's next slice, or nil (and the next segment) after its last byte.
        private mutating func nextFileSlice(path: String, size: Int64, part: String) throws(NetworkError) -> [UInt8]? {
            if file == nil {
                switch UploadFile.open(path: path) {
                case .success(let opened): file = opened
                case .failure(let cause):
                    throw NetworkError(.cannotOpenFile, reason: "Cannot read \(path) for multipart part \"\(part.prefix(80))\": \(cause.errnoText)",
                                       underlyingError: cause)
                }
            }
            guard let file else { return nil }
            guard file.size == size else {
                throw NetworkError(.requestBodyFailed, reason: "\(path) (multipart part \"\(part.prefix(80))\") is \(file.size) bytes now, "
                    + "not the \(size) it had when added; the upload stopped rather than send a wrong Content-Length")
            }
            guard file.offset < size else {
                self.file = nil
                index += 1
                return nil
            }
            // Never zero-filled first: that cost as much as the rest of the upload.
            switch file.readSlice(maximumCount: Int(Swift.min(Int64(chunkSize), size - file.offset))) {
            case .success(let slice):
                return slice
            case .failure(let cause):
                throw NetworkError(.requestBodyFailed, reason: "Cannot read \(path) for multipart part \"\(part.prefix(80))\": "
                    + (cause.syscall.contains("shrank") ? "the file shrank while it was sent" : cause.errnoText),
                    underlyingError: cause)
            }
        }

        /// The caller's next chunk (split to the chunk size), or nil (and the next segment)
        /// once the stream has given `length` bytes and ended.
        private mutating func nextStreamed(_ sequence: RequestBody.ByteChunks, length: Int64, part: String) async throws(NetworkError)
            -> [UInt8]? {
            func failure(_ what: String, _ cause: (any Error)? = nil) -> NetworkError {
                NetworkError(.requestBodyFailed, reason: "The byte stream of multipart part \"\(part.prefix(80))\" \(what)",
                             underlyingError: cause)
            }
            if chunks == nil { chunks = sequence.makeAsyncIterator() }
            while true {
                if pendingOffset < pending.count {
                    if pendingOffset == 0, pending.count <= chunkSize {
                        defer { pending = [] }
                        return pending
                    }
                    let count = Swift.min(chunkSize, pending.count - pendingOffset)
                    defer { pendingOffset += count }
                    return Array(pending[pendingOffset..<(pendingOffset + count)])
                }
                pending = []
                pendingOffset = 0
                let next: [UInt8]?
                do {
                    next = try await chunks?.next()
                } catch let error as NetworkError {
                    throw error
                } catch {
                    throw failure("failed: \(error)", error)
                }
                guard let next else {
                    guard streamed == length else { throw failure("ended after \(streamed) of its \(length) bytes") }
                    chunks = nil
                    streamed = 0
                    index += 1
                    return nil
                }
                guard Int64(next.count) <= length - streamed else {
                    throw failure("gave more than the \(length) bytes it announced")
                }
                streamed += Int64(next.count)
                pending = next
            }
        }
    }
}
