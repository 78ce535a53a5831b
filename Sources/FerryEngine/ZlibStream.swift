import CFerryShims
import CZlib

/// One layer of Content-Encoding being undone: an inflate stream and its own output buffer.
///
/// zlib keeps a pointer back to its `z_stream` inside its private state, so the struct must
/// never move. It is allocated once here and freed in `deinit`, never stored inline in a
/// Swift value that could be copied. The output buffer is allocated once too and reused for
/// every piece, so decoding costs no allocation per call and never grows with the body.
///
/// Not thread-safe: a ``ContentDecoder`` and its layers live on one event loop.
final class ZlibStream {
    /// The content coding this layer undoes.
    enum Coding: Sendable {
        /// RFC 9112 §7.2: a gzip file format stream; members may be concatenated.
        case gzip
        /// RFC 9112 §7.2 says zlib-wrapped (RFC 1950), but servers also send raw RFC 1951.
        case deflate
    }

    /// Hands one piece of output (valid only during the call) to the next layer or the sink.
    typealias Emit = (UnsafeRawBufferPointer) throws(ContentDecodingError) -> Void

    private enum State {
        /// deflate only: waiting for two bytes to tell zlib-wrapped from raw deflate. Holds
        /// the first byte when it arrived alone, so the sniff works at any split.
        case sniffing(UInt8?)
        /// zlib is mid-stream.
        case inflating
        /// A gzip member ended exactly at the end of the input so far; another may follow.
        case memberEnded
        /// The stream is complete; further bytes are trailing garbage and are ignored.
        case finished
    }

    /// What this layer undoes.
    let coding: Coding
    /// The coding as the field listed it (`gzip`, `x-gzip`, `deflate`), for error messages.
    let name: String
    /// Encoded bytes zlib has taken from this layer's input.
    private(set) var consumedBytes: Int64 = 0
    /// Decoded bytes this layer has produced.
    private(set) var producedBytes: Int64 = 0

    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutablePointer<UInt8>
    private let outputSize: Int
    private var streamInitialized = false
    private var state: State
    /// gzip members completed so far.
    private var completedMembers = 0
    /// Whether the current gzip member produced any byte (a member that produced nothing
    /// after a complete one may be trailing garbage rather than data).
    private var memberProducedOutput = false

    /// Creates a layer; gzip starts zlib at once, deflate waits for two bytes to sniff.
    /// - Throws: ``ContentDecodingError/Kind/libraryFailure`` when zlib cannot start.
    init(_ coding: Coding, name: String, outputSize: Int) throws(ContentDecodingError) {
        self.coding = coding
        self.name = name
        self.outputSize = outputSize
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = .allocate(capacity: outputSize)
        switch coding {
        case .gzip:
            state = .inflating
            // 15 + 16: a 32 KiB window and gzip framing only (no auto-detection: a field
            // that says gzip must be gzip).
            try start(windowBits: 15 + 16)
        case .deflate:
            state = .sniffing(nil)
        }
    }

    deinit {
        if streamInitialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
    }

    // MARK: - Feeding

    /// Inflates `input`, handing every piece of output to `emit` before the buffer is reused.
    func inflate(_ input: UnsafeRawBufferPointer, emit: Emit) throws(ContentDecodingError) {
        guard !input.isEmpty else { return }
        switch state {
        case .finished:
            return
        case .sniffing(nil):
            if input.count == 1 {
                state = .sniffing(input[0])
                return
            }
            try start(windowBits: Self.isZlibHeader(input[0], input[1]) ? 15 : -15)
        case .sniffing(let first?):
            try start(windowBits: Self.isZlibHeader(first, input[0]) ? 15 : -15)
            var byte = first
            let more = try withUnsafeBytes(of: &byte) { (bytes) throws(ContentDecodingError) in
                try run(bytes, emit)
            }
            guard more else { return }
        case .memberEnded:
            try startNextMember()
        case .inflating:
            break
        }
        guard let base = input.baseAddress else { return }
        // avail_in is 32 bits wide: feed enormous inputs in slices.
        var offset = 0
        while offset < input.count {
            let length = min(input.count - offset, 1 << 30)
            guard try run(UnsafeRawBufferPointer(start: base + offset, count: length), emit) else { return }
            offset += length
        }
    }

    /// Checks the layer is complete at the end of the body.
    /// - Throws: ``ContentDecodingError/Kind/truncatedStream`` when it stopped mid-stream.
    func finish() throws(ContentDecodingError) {
        switch state {
        case .finished, .memberEnded:
            return
        case .sniffing(nil):
            // No byte at all. Servers label empty bodies `Content-Encoding: gzip`; browsers,
            // curl and urllib3 accept that, so an empty body decodes to an empty body.
            return
        case .sniffing(.some):
            throw ContentDecodingError(.truncatedStream, encoding: name, detail: "body ended after 1 byte")
        case .inflating:
            if consumedBytes == 0 { return }  // empty body, as above
            // Bytes after a complete gzip member that never produced output are treated
            // like trailing garbage (see `run`), not as a truncated member.
            if completedMembers > 0 && !memberProducedOutput { return }
            throw ContentDecodingError(
                .truncatedStream, encoding: name,
                detail: "body ended after \(consumedBytes) encoded bytes, before the end of the stream"
            )
        }
    }

    // MARK: - zlib

    /// Runs inflate over one slice until zlib has taken all of it and has no output pending.
    /// - Returns: false when the stream ended and the rest of the input was dropped.
    private func run(_ slice: UnsafeRawBufferPointer, _ emit: Emit) throws(ContentDecodingError) -> Bool {
        guard let base = slice.baseAddress else { return true }
        // zlib only reads through next_in (it is `const` when built with ZLIB_CONST).
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = UInt32(slice.count)
        while true {
            stream.pointee.next_out = output
            stream.pointee.avail_out = UInt32(outputSize)
            let inBefore = stream.pointee.avail_in
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            let used = Int(inBefore - stream.pointee.avail_in)
            let produced = outputSize - Int(stream.pointee.avail_out)
            consumedBytes += Int64(used)
            switch status {
            case Z_OK, Z_STREAM_END:
                break
            case Z_BUF_ERROR:
                // No progress possible: all input taken and nothing pending. Not an error.
                break
            case Z_DATA_ERROR:
                if coding == .gzip && completedMembers > 0 && !memberProducedOutput && produced == 0 {
                    // Bytes after a complete gzip member that do not start a valid member
                    // (padding, junk): ignored, as browsers, curl and urllib3 do.
                    state = .finished
                    return false
                }
                throw ContentDecodingError(.corruptData, encoding: name, detail: zlibMessage ?? "invalid data")
            case Z_NEED_DICT:
                throw ContentDecodingError(.corruptData, encoding: name, detail: "stream requires a preset dictionary")
            default:
                // Z_MEM_ERROR, Z_STREAM_ERROR: not the peer's fault.
                throw libraryFailure("inflate", status)
            }
            if produced > 0 {
                producedBytes += Int64(produced)
                memberProducedOutput = true
                try emit(UnsafeRawBufferPointer(start: output, count: produced))
            }
            if status == Z_STREAM_END {
                completedMembers += 1
                switch coding {
                case .deflate:
                    // Trailing bytes after a deflate stream cannot be a second stream (the
                    // coding has no members); ignore them, as zlib-based clients do, rather
                    // than fail a body whose content is complete.
                    state = .finished
                    return false
                case .gzip:
                    // RFC 1952 §2.2: a gzip file is a series of members; keep going like curl.
                    guard stream.pointee.avail_in > 0 else {
                        state = .memberEnded
                        return true
                    }
                    try startNextMember()
                    continue
                }
            }
            // Done when zlib took all input and had room to spare (no output left inside).
            if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return true }
            if used == 0 && produced == 0 {
                // Input remains yet zlib moved nothing: never happens with a sane zlib.
                // Stop rather than spin.
                throw ContentDecodingError(.libraryFailure, encoding: name, detail: "inflate made no progress")
            }
        }
    }

    private func start(windowBits: Int32) throws(ContentDecodingError) {
        let status = cferry_inflate_init2(stream, windowBits)
        guard status == Z_OK else { throw libraryFailure("inflateInit2", status) }
        streamInitialized = true
        state = .inflating
    }

    private func startNextMember() throws(ContentDecodingError) {
        let status = inflateReset(stream)
        guard status == Z_OK else { throw libraryFailure("inflateReset", status) }
        memberProducedOutput = false
        state = .inflating
    }

    private var zlibMessage: String? {
        stream.pointee.msg.map { String(cString: $0) }
    }

    private func libraryFailure(_ call: String, _ status: Int32) -> ContentDecodingError {
        ContentDecodingError(.libraryFailure, encoding: name, detail: "\(call) returned \(status)" + (zlibMessage.map { ": \($0)" } ?? ""))
    }

    /// RFC 1950 §2.2: CM (low nibble of CMF) is 8, CINFO (high nibble) is at most 7 (a
    /// window of at most 32 KiB), and CMF·256 + FLG is a multiple of 31. A raw deflate stream
    /// can only look like that if it opens with a stored block whose padding bits are not
    /// zero, which encoders do not write; browsers sniff the same way.
    static func isZlibHeader(_ b0: UInt8, _ b1: UInt8) -> Bool {
        b0 & 0x0F == 8 && b0 >> 4 <= 7 && (Int(b0) << 8 | Int(b1)) % 31 == 0
    }
}
