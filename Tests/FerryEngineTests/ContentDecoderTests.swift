import CFerryShims
import CZlib
@testable import FerryEngine
import Testing
import TestSupport

// MARK: - Fixtures made with zlib itself

/// The framing a fixture is compressed with.
enum Wrapper: CaseIterable, Sendable {
    case gzip, zlib, raw

    /// deflateInit2's windowBits for this framing.
    var windowBits: Int32 {
        switch self {
        case .gzip: 15 + 16
        case .zlib: 15
        case .raw: -15
        }
    }

    /// The Content-Encoding a server would label it with.
    var contentEncoding: String { self == .gzip ? "gzip" : "deflate" }
}

/// Compresses `chunk` repeated `repeats` times (so a bomb needs no giant input array).
func compress(_ chunk: [UInt8], repeats: Int = 1, _ wrapper: Wrapper, level: Int32 = 6) -> [UInt8] {
    // deflate keeps a pointer to its z_stream: give it a stable address.
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer { deflateEnd(stream); stream.deallocate() }
    precondition(cferry_deflate_init2(stream, level, wrapper.windowBits) == Z_OK)
    var result: [UInt8] = []
    var out = [UInt8](repeating: 0, count: 64 * 1024)
    var chunk = chunk
    for round in 0..<repeats {
        let flush = round == repeats - 1 ? Z_FINISH : Z_NO_FLUSH
        chunk.withUnsafeMutableBufferPointer { input in
            stream.pointee.next_in = input.baseAddress
            stream.pointee.avail_in = UInt32(input.count)
            repeat {
                out.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = UInt32(buffer.count)
                    let status = deflate(stream, flush)
                    precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR)
                    result.append(contentsOf: buffer.prefix(buffer.count - Int(stream.pointee.avail_out)))
                }
            } while stream.pointee.avail_out == 0
        }
    }
    return result
}


/// About 200 KB of text-like bytes: compressible, but not trivially, and larger than one
/// output buffer so the decoder must drain zlib several times per input.
let sampleBody: [UInt8] = {
    var rng = SplitMix64(state: 42)
    let words = ["ferry", "swift", "zlib", "stream", "header", "body", "chunk", "linux", "epoll", "gzip"]
    var bytes: [UInt8] = []
    while bytes.count < 200_000 {
        bytes += Array(words.randomElement(using: &rng)!.utf8)
        bytes.append(UInt8.random(in: 0...9, using: &rng) == 0 ? 10 : 32)
        if UInt8.random(in: 0...15, using: &rng) == 0 { bytes.append(UInt8.random(in: 0...255, using: &rng)) }
    }
    return bytes
}()

/// How a body is cut into `decode` calls.
enum Slicing: Sendable, CustomTestStringConvertible {
    case whole, bytewise, random(seed: UInt64)

    var testDescription: String {
        switch self {
        case .whole: "whole"
        case .bytewise: "one byte at a time"
        case .random(let seed): "random slices (seed \(seed))"
        }
    }

    func pieces(_ count: Int) -> [Range<Int>] {
        switch self {
        case .whole: return [0..<count]
        case .bytewise: return (0..<count).map { $0..<$0 + 1 }
        case .random(let seed):
            var rng = SplitMix64(state: seed)
            var ranges: [Range<Int>] = []
            var start = 0
            while start < count {
                let end = min(count, start + Int.random(in: 1...4096, using: &rng))
                ranges.append(start..<end)
                start = end
            }
            return ranges
        }
    }

    static let all: [Slicing] = [.whole, .bytewise, .random(seed: 7), .random(seed: 2026)]
}

/// What a decode run delivered.
struct DecodeRun {
    var output: [UInt8] = []
    var largestPiece = 0
    var error: ContentDecodingError?
}

/// Feeds `encoded` to a decoder cut as `slicing` says, then finishes; collects the output
/// and the first error instead of throwing, so tests can inspect both.
func runDecoder(_ decoder: ContentDecoder, _ encoded: [UInt8], _ slicing: Slicing = .whole, finish: Bool = true) -> DecodeRun {
    var run = DecodeRun()
    do {
        try encoded.withUnsafeBytes { bytes in
            for range in slicing.pieces(bytes.count) {
                try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[range])) { piece in
                    run.largestPiece = max(run.largestPiece, piece.count)
                    run.output.append(contentsOf: piece)
                }
            }
        }
        if finish { try decoder.finish() }
    } catch let error as ContentDecodingError {
        run.error = error
    } catch {
        Issue.record(error)
    }
    return run
}

func decode(_ encoded: [UInt8], _ contentEncoding: String, _ slicing: Slicing = .whole, limits: DecodingLimits = .default) throws -> DecodeRun {
    let decoder = try ContentDecoder(contentEncoding: contentEncoding, limits: limits)
    return runDecoder(decoder, encoded, slicing)
}

// MARK: - Round trips

@Suite("ContentDecoder round trips")
struct ContentDecoderTests {
    @Test("each framing decodes identically however the body is cut", arguments: Wrapper.allCases, Slicing.all)
    func roundTrip(_ wrapper: Wrapper, _ slicing: Slicing) throws {
        let encoded = compress(sampleBody, wrapper)
        let run = try decode(encoded, wrapper.contentEncoding, slicing)
        #expect(run.error == nil)
        #expect(run.output == sampleBody)
        #expect(run.largestPiece <= ContentDecoder.outputBufferSize)
    }

    @Test("a deflate body whose first call holds one byte still sniffs its framing", arguments: [Wrapper.zlib, .raw])
    func sniffAcrossCalls(_ wrapper: Wrapper) throws {
        let encoded = compress(Array("sniff me".utf8), wrapper)
        let decoder = try ContentDecoder(contentEncoding: "deflate", limits: .default)
        var output: [UInt8] = []
        try encoded.withUnsafeBytes { bytes in
            try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[0..<1])) { output += $0 }
            try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[1...])) { output += $0 }
        }
        try decoder.finish()
        #expect(output == Array("sniff me".utf8))
    }

    @Test("a gzip file written by Python's gzip module (FNAME and MTIME set) decodes")
    func foreignGzip() throws {
        // python3: gzip.GzipFile(filename='hello.txt', mtime=1234567890).write(b"Hello, Ferry!\n" * 3)
        let fixture: [UInt8] = [
            0x1F, 0x8B, 0x08, 0x08, 0xD2, 0x02, 0x96, 0x49, 0x02, 0xFF, 0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x2E,
            0x74, 0x78, 0x74, 0x00, 0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0xD7, 0x51, 0x70, 0x4B, 0x2D, 0x2A, 0xAA,
            0x54, 0xE4, 0xF2, 0xC0, 0xC3, 0x03, 0x00, 0xF3, 0x71, 0xF2, 0xA9, 0x2A, 0x00, 0x00, 0x00,
        ]
        for slicing in Slicing.all {
            let run = try decode(fixture, "x-gzip", slicing)
            #expect(run.error == nil)
            #expect(run.output == Array(String(repeating: "Hello, Ferry!\n", count: 3).utf8))
        }
    }

    @Test("concatenated gzip members decode as one body", arguments: Slicing.all)
    func concatenatedMembers(_ slicing: Slicing) throws {
        let first = Array(sampleBody[..<70_000]), second = Array(sampleBody[70_000...])
        let encoded = compress(first, .gzip) + compress([], .gzip) + compress(second, .gzip)
        let run = try decode(encoded, "gzip", slicing)
        #expect(run.error == nil)
        #expect(run.output == sampleBody)
    }

    @Test("stacked codings are undone in reverse order of listing", arguments: [
        ("gzip, gzip", [Wrapper.gzip, .gzip]),
        ("deflate, gzip", [Wrapper.zlib, .gzip]),
        ("identity, Deflate ,\tGZIP, ,deflate", [Wrapper.raw, .gzip, .zlib]),
    ])
    func stacked(_ field: String, _ applied: [Wrapper]) throws {
        // `applied` is the order the server applied the codings (the listing order).
        let encoded = applied.reduce(sampleBody) { compress($0, $1) }
        for slicing in Slicing.all {
            let run = try decode(encoded, field, slicing)
            #expect(run.error == nil, "\(slicing.testDescription)")
            #expect(run.output == sampleBody, "\(slicing.testDescription)")
        }
    }

    @Test("trailing bytes after a complete stream are ignored")
    func trailingGarbage() throws {
        for wrapper in Wrapper.allCases {
            let encoded = compress(sampleBody, wrapper) + [0, 0, 0, 0x1F, 0x8B, 0xFF, 0x42]
            for slicing in Slicing.all {
                let run = try decode(encoded, wrapper.contentEncoding, slicing)
                #expect(run.error == nil, "\(wrapper) \(slicing.testDescription)")
                #expect(run.output == sampleBody, "\(wrapper) \(slicing.testDescription)")
            }
        }
    }

    @Test("an empty body labelled with a coding decodes to an empty body", arguments: ["gzip", "deflate", "gzip, deflate"])
    func emptyBody(_ field: String) throws {
        let run = try decode([], field)
        #expect(run.error == nil)
        #expect(run.output.isEmpty)
    }

    // MARK: - The field value

    @Test("nothing to decode gives no decoder", arguments: [nil, "", "identity", " IDENTITY , identity ", ",,"] as [String?])
    func nothingToDecode(_ field: String?) throws {
        #expect(try ContentDecoder.make(contentEncoding: field, limits: .default) == nil)
    }

    @Test("an identity-only decoder passes bytes through")
    func identityPassesThrough() throws {
        let run = try decode(sampleBody, "identity", .random(seed: 3))
        #expect(run.error == nil)
        #expect(run.output == sampleBody)
    }

    @Test("a coding Ferry does not speak is refused", arguments: ["br", "gzip, br", "zstd", "compress", "gzip;q=1", "gzip deflate"])
    func unsupported(_ field: String) {
        #expect {
            try ContentDecoder.make(contentEncoding: field, limits: .default)
        } throws: { ($0 as? ContentDecodingError)?.kind == .unsupportedEncoding }
    }

    @Test("more stacked codings than the limit are refused; identity does not count")
    func tooMany() throws {
        let limits = DecodingLimits(maxStackedEncodings: 3)
        let three = "gzip, identity, deflate, identity, x-gzip"
        #expect(try ContentDecoder.make(contentEncoding: three, limits: limits) != nil)
        #expect {
            try ContentDecoder.make(contentEncoding: three + ", gzip", limits: limits)
        } throws: { ($0 as? ContentDecodingError)?.kind == .tooManyEncodings }
        let many = Array(repeating: "gzip", count: 10_000).joined(separator: ",")
        #expect {
            try ContentDecoder(contentEncoding: many, limits: .default)
        } throws: { ($0 as? ContentDecodingError)?.kind == .tooManyEncodings }
    }

    @Test("the zlib-header sniff follows RFC 1950 §2.2")
    func sniffRule() {
        #expect(ZlibStream.isZlibHeader(0x78, 0x9C))  // default compression
        #expect(ZlibStream.isZlibHeader(0x78, 0x01))
        #expect(ZlibStream.isZlibHeader(0x78, 0xDA))
        #expect(!ZlibStream.isZlibHeader(0x78, 0x9D))  // checksum off by one
        #expect(!ZlibStream.isZlibHeader(0x1F, 0x8B))  // gzip magic is not zlib
        #expect(!ZlibStream.isZlibHeader(0x88, 0x1C))  // checksum fits, but a 64 KiB window is invalid
    }
}
