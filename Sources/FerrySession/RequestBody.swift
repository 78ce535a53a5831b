#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import FerryEngine

/// What a request sends: bytes in memory, a file streamed from disk, or an async stream.
///
/// Files are never loaded whole: they are read in slices as the connection can take them.
/// A stream with an unknown length is sent with chunked transfer coding.
public struct RequestBody: Sendable {
    /// An async sequence of byte chunks, type-erased.
    public typealias ByteChunks = any AsyncSequence<[UInt8], any Error> & Sendable

    // `package`: Ferry's serializers read a body back (a multipart body written to a file).
    package enum Storage: Sendable {
        case bytes([UInt8])
        case file(path: String)
        case stream(ByteChunks, length: Int64?, replayable: Bool)
        case segments([BodySegment], length: Int64)
    }

    package let storage: Storage

    /// The fastest this body is sent, in bytes per second (AFNetworking's
    /// `throttleBandwidthWithPacketSize:delay:`); nil: no cap of its own. The task's and the
    /// session's upload caps apply as well. Set with ``limited(toBytesPerSecond:)``.
    public private(set) var maximumBytesPerSecond: Int64?

    /// This body, sent no faster than `bytesPerSecond` (paced by the connection's event loop:
    /// the socket is simply not written to until the cap has room). nil or a value below 1
    /// removes the cap.
    public func limited(toBytesPerSecond bytesPerSecond: Int64?) -> RequestBody {
        var body = self
        body.maximumBytesPerSecond = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        return body
    }

    /// A body from bytes in memory.
    public static func data(_ data: Data) -> RequestBody { RequestBody(storage: .bytes(Array(data))) }

    /// A body from bytes in memory.
    public static func bytes(_ bytes: [UInt8]) -> RequestBody { RequestBody(storage: .bytes(bytes)) }

    /// A body read from a file, streamed with its length as Content-Length.
    ///
    /// The file is opened when the request is sent; a missing or unreadable file fails the
    /// request with ``NetworkError/Code/cannotOpenFile``.
    public static func file(_ url: URL) -> RequestBody { RequestBody(storage: .file(path: url.path)) }

    /// A body produced by an async sequence of chunks.
    /// - Parameters:
    ///   - chunks: The chunks, in order.
    ///   - length: The total length if known (sent as Content-Length, and enforced); `nil`
    ///     sends the body chunked.
    ///   - replayable: Whether every iteration of `chunks` yields the same bytes from the
    ///     start (a sequence over memory or files, such as a multipart body), so that a
    ///     request sent again (a 307 or 308 redirect, an answer to a challenge) iterates it
    ///     anew. False by default: a stream is read once, and sending it again asks the task
    ///     delegate for a new one.
    public static func stream(_ chunks: ByteChunks, length: Int64?, replayable: Bool = false) -> RequestBody {
        RequestBody(storage: .stream(chunks, length: length, replayable: replayable))
    }

    /// Bytes and whole files one after the other, `length` bytes in all, read by the engine
    /// as the connection takes them (files opened in turn, their sizes checked): how a
    /// multipart form without a caller's stream is sent. Package-only: ``MultipartFormData``
    /// builds it.
    package static func segments(_ segments: [BodySegment], length: Int64) -> RequestBody {
        RequestBody(storage: .segments(segments, length: length))
    }

    /// Whether the body is read once from a stream, so that sending it again needs a new one.
    var isStream: Bool {
        if case .stream(_, _, replayable: false) = storage { return true }
        return false
    }

    /// The length when it is known without reading: memory bodies, a regular file's size now
    /// (what its Content-Length will say, unless it changes first), streams that declare it.
    public var knownLength: Int64? {
        switch storage {
        case .bytes(let bytes): return Int64(bytes.count)
        case .file(let path):
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return Int64(info.st_size)
        case .stream(_, let length, _): return length
        case .segments(_, let length): return length
        }
    }
}
