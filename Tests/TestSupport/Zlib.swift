// gzip / zlib / raw deflate with the system zlib, for compressed routes and for tests that
// check them. Independent of Ferry's own ContentDecoder on purpose.
import CZlib

/// The three framings of DEFLATE data (RFC 1950, 1951, 1952).
public enum ZlibFormat: Sendable, Hashable {
    /// gzip (RFC 1952): what `Content-Encoding: gzip` means.
    case gzip
    /// zlib-wrapped deflate (RFC 1950): what `Content-Encoding: deflate` means (RFC 9110 §8.4.1.2).
    case zlib
    /// Raw deflate (RFC 1951) without a wrapper: what some servers wrongly send as `deflate`.
    case raw

    /// zlib's `windowBits` for this format (15 with +16 for gzip, negative for raw).
    var windowBits: Int32 {
        switch self {
        case .gzip: 15 + 16
        case .zlib: 15
        case .raw: -15
        }
    }
}

/// A zlib failure: the zlib return code and its message.
public struct ZlibError: Error, Sendable, CustomStringConvertible {
    /// The zlib return code (`Z_DATA_ERROR`, `Z_BUF_ERROR`, …), or 0 for "output limit exceeded".
    public let code: Int32
    /// What went wrong.
    public let message: String
    /// A readable description.
    public var description: String { "zlib error \(code): \(message)" }
}

/// One-shot compression and decompression helpers over the system zlib.
public enum Zlib {
    /// Compresses `bytes` in one go.
    /// - Parameters:
    ///   - bytes: the input.
    ///   - format: the framing to produce.
    ///   - level: 0 to 9 (`Z_DEFAULT_COMPRESSION` is -1).
    /// - Returns: the compressed bytes.
    public static func compress(_ bytes: [UInt8], format: ZlibFormat, level: Int32 = -1) -> [UInt8] {
        let stream = Deflater(format: format, level: level)
        var output: [UInt8] = []
        stream.feed(bytes, finish: true, into: &output)
        return output
    }

    /// Compresses `count` zero bytes without ever holding them: a decompression bomb that is
    /// about 1,000 times smaller on the wire than decoded.
    /// - Parameters:
    ///   - count: how many zero bytes the output decodes to.
    ///   - format: the framing to produce.
    /// - Returns: the compressed bytes.
    public static func compressZeros(count: Int, format: ZlibFormat) -> [UInt8] {
        let block = [UInt8](repeating: 0, count: 256 * 1024)
        let stream = Deflater(format: format, level: 9)
        var output: [UInt8] = []
        var remaining = count
        repeat {
            let take = min(remaining, block.count)
            remaining -= take
            stream.feed(block[0..<take], finish: remaining == 0, into: &output)
        } while remaining > 0
        return output
    }

    /// Decompresses `bytes` in one go.
    /// - Parameters:
    ///   - bytes: the compressed input; it must hold the whole stream.
    ///   - format: the framing expected.
    ///   - limit: the most output bytes accepted (a bomb guard).
    /// - Returns: the decoded bytes.
    /// - Throws: ``ZlibError`` on corrupt or truncated input, or when the output exceeds `limit`.
    public static func decompress(
        _ bytes: [UInt8], format: ZlibFormat, limit: Int = 256 * 1024 * 1024
    ) throws(ZlibError) -> [UInt8] {
        // zlib keeps a back-pointer to its z_stream and refuses one that moved: keep it on the heap.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        let initStatus = inflateInit2_(
            stream, format.windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard initStatus == Z_OK else { throw ZlibError(code: initStatus, message: "inflateInit2 failed") }
        defer { inflateEnd(stream) }

        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = bytes
        var status = Z_OK
        input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.pointee.next_in = inputBuffer.baseAddress
            stream.pointee.avail_in = UInt32(inputBuffer.count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    status = inflate(stream, Z_NO_FLUSH)
                    return out.count - Int(stream.pointee.avail_out)
                }
                output.append(contentsOf: chunk[0..<produced])
                // Go on while zlib makes progress: input left, or the output chunk came back full.
            } while status == Z_OK && output.count <= limit
                && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0)
            stream.pointee.next_in = nil
        }
        if output.count > limit { throw ZlibError(code: 0, message: "output exceeds \(limit) bytes") }
        switch status {
        case Z_STREAM_END: return output
        case Z_OK, Z_BUF_ERROR: throw ZlibError(code: status, message: "truncated stream")
        default: throw ZlibError(code: status, message: "corrupt stream")
        }
    }
}

/// A streaming deflate state (gzip, zlib or raw). Internal: routes feed it in slices.
final class Deflater {
    // zlib keeps a back-pointer to its z_stream and refuses one that moved: keep it on the heap.
    private let stream: UnsafeMutablePointer<z_stream>
    private var finished = false

    init(format: ZlibFormat, level: Int32) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, format.windowBits, 8, Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        // Only a bad parameter or no memory can fail here; both are programmer errors in a test.
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses `input` and appends what zlib produced; `finish` ends the stream.
    func feed(_ input: some Collection<UInt8>, finish: Bool, into output: inout [UInt8]) {
        precondition(!finished, "feed after finish")
        var bytes = Array(input)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let flush = finish ? Z_FINISH : Z_NO_FLUSH
        let stream = self.stream
        bytes.withUnsafeMutableBufferPointer { inputBuffer in
            stream.pointee.next_in = inputBuffer.baseAddress
            stream.pointee.avail_in = UInt32(inputBuffer.count)
            var status = Z_OK
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    status = deflate(stream, flush)
                    return out.count - Int(stream.pointee.avail_out)
                }
                output.append(contentsOf: chunk[0..<produced])
                // With Z_NO_FLUSH, stop once input is consumed and zlib did not fill the chunk;
                // with Z_FINISH, go on while zlib says Z_OK (it ends with Z_STREAM_END).
            } while finish
                ? status == Z_OK
                : (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0)
            stream.pointee.next_in = nil
        }
        finished = finish
    }
}
