@testable import FerryEngine
import Testing

/// 64 KiB of zeros: repeated, the classic decompression bomb.
private let zeros = [UInt8](repeating: 0, count: 64 * 1024)
private let mebibyte: Int64 = 1 << 20

@Suite("ContentDecoder limits and damage")
struct ContentDecoderLimitTests {
    // MARK: - Bombs

    @Test("the default ratio limit stops a 100 MiB gzip bomb soon after the grace bytes", arguments: [Slicing.whole, .random(seed: 11)])
    func defaultLimitsStopBomb(_ slicing: Slicing) throws {
        let bomb = compress(zeros, repeats: 1_600, .gzip, level: 9)  // 100 MiB of zeros
        #expect(bomb.count < 200 * 1024)
        let decoder = try ContentDecoder(contentEncoding: "gzip", limits: .default)
        let run = runDecoder(decoder, bomb, slicing)
        #expect(run.error?.kind == .expansionRatioExceeded)
        let limit = DecodingLimits.default.ratioGraceBytes
        #expect(Int64(run.output.count) <= limit)
        #expect(decoder.decodedByteCount <= limit + Int64(ContentDecoder.outputBufferSize))
    }

    @Test("the ratio limit is checked per piece, however the bomb arrives", arguments: Slicing.all)
    func ratioLimit(_ slicing: Slicing) throws {
        let bomb = compress(zeros, repeats: 160, .gzip)  // 10 MiB of zeros
        let limits = DecodingLimits(maxExpansionRatio: 100, ratioGraceBytes: mebibyte)
        let decoder = try ContentDecoder(contentEncoding: "gzip", limits: limits)
        let run = runDecoder(decoder, bomb, slicing)
        #expect(run.error?.kind == .expansionRatioExceeded)
        #expect(run.error?.encoding == "gzip")
        // Zeros expand ~1000:1, so 100:1 is broken as soon as the grace is used up.
        #expect(Int64(run.output.count) <= mebibyte)
        #expect(decoder.decodedByteCount <= mebibyte + Int64(ContentDecoder.outputBufferSize))
    }

    @Test("maxDecodedBytes stops a bomb the ratio would allow", arguments: Wrapper.allCases)
    func sizeLimit(_ wrapper: Wrapper) throws {
        let bomb = compress(zeros, repeats: 160, wrapper)
        let limits = DecodingLimits(maxDecodedBytes: 3 * mebibyte + 5, maxExpansionRatio: .max)
        let decoder = try ContentDecoder(contentEncoding: wrapper.contentEncoding, limits: limits)
        let run = runDecoder(decoder, bomb, .random(seed: 5))
        #expect(run.error?.kind == .decodedSizeLimitExceeded)
        // The piece that crossed the limit is never handed on.
        #expect(Int64(run.output.count) <= 3 * mebibyte + 5)
        #expect(decoder.decodedByteCount <= 3 * mebibyte + 5 + Int64(ContentDecoder.outputBufferSize))
    }

    @Test("a body exactly at maxDecodedBytes is allowed")
    func sizeLimitBoundary() throws {
        let body = Array(sampleBody[..<100_000])
        let exact = try decode(compress(body, .gzip), "gzip", limits: DecodingLimits(maxDecodedBytes: 100_000))
        #expect(exact.error == nil)
        #expect(exact.output == body)
        let under = try decode(compress(body, .gzip), "gzip", limits: DecodingLimits(maxDecodedBytes: 99_999))
        #expect(under.error?.kind == .decodedSizeLimitExceeded)
    }

    @Test("a bomb inside a stacked coding is stopped too")
    func stackedBomb() throws {
        let inner = compress(zeros, repeats: 1_600, .gzip, level: 9)  // 100 MiB → ~100 KiB
        let bomb = compress(inner, .zlib, level: 9)  // `gzip, deflate`: gzip applied first
        let decoder = try ContentDecoder(contentEncoding: "gzip, deflate", limits: .default)
        let run = runDecoder(decoder, bomb, .random(seed: 9))
        #expect(run.error?.kind == .expansionRatioExceeded)
        #expect(Int64(run.output.count) <= DecodingLimits.default.ratioGraceBytes)
    }

    @Test("well-compressed bodies under the grace bytes are never refused")
    func graceBytes() throws {
        let body = [UInt8](repeating: 0x41, count: 1 << 20)  // ~1000:1, exactly the grace
        let run = try decode(compress(body, .gzip, level: 9), "gzip", .bytewise)
        #expect(run.error == nil)
        #expect(run.output == body)
    }

    // MARK: - Damage

    @Test("corrupt data fails with zlib's message", arguments: [
        ("gzip", Array("this is not gzip at all".utf8)),
        ("deflate", [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),  // raw deflate, reserved block type
        ("deflate", [0x78, 0x9C, 0xFF, 0xFF, 0xFF, 0xFF]),  // zlib header, then a reserved block type
    ] as [(String, [UInt8])])
    func corrupt(_ field: String, _ bytes: [UInt8]) throws {
        for slicing in [Slicing.whole, .bytewise] {
            let run = try decode(bytes, field, slicing)
            #expect(run.error?.kind == .corruptData)
            #expect(run.error?.encoding == field)
            #expect(run.error?.detail?.isEmpty == false)
        }
    }

    @Test("a damaged checksum is corrupt data", arguments: [Wrapper.gzip, .zlib])
    func badChecksum(_ wrapper: Wrapper) throws {
        var encoded = compress(sampleBody, wrapper)
        // gzip ends with CRC32 + ISIZE, zlib with Adler-32: damage the check value.
        encoded[encoded.count - (wrapper == .gzip ? 8 : 1)] ^= 0x01
        let run = try decode(encoded, wrapper.contentEncoding)
        #expect(run.error?.kind == .corruptData)
        #expect(run.error?.detail?.contains("check") == true)
    }

    @Test("a body that ends mid-stream is truncated", arguments: Wrapper.allCases)
    func truncated(_ wrapper: Wrapper) throws {
        let encoded = compress(sampleBody, wrapper)
        for cut in [1, encoded.count / 2, encoded.count - 1] {
            let run = try decode(Array(encoded[..<cut]), wrapper.contentEncoding, .random(seed: 1))
            #expect(run.error?.kind == .truncatedStream, "cut at \(cut)")
        }
    }

    @Test("a truncated second gzip member that produced data is truncated, a stub is ignored")
    func truncatedSecondMember() throws {
        let first = compress(Array("first".utf8), .gzip)
        let second = compress(sampleBody, .gzip)
        let cut = try decode(first + second[..<(second.count / 2)], "gzip")
        #expect(cut.error?.kind == .truncatedStream)
        let stub = try decode(first + second[..<4], "gzip")
        #expect(stub.error == nil)
        #expect(stub.output == Array("first".utf8))
    }

    // MARK: - After an error

    @Test("an error from the sink ends decoding and is reported again")
    func sinkError() throws {
        let decoder = try ContentDecoder(contentEncoding: "gzip", limits: .default)
        let stop = ContentDecodingError(.libraryFailure, encoding: "test", detail: "sink refused")
        let encoded = compress(sampleBody, .gzip)
        var calls = 0
        #expect(throws: stop) {
            try encoded.withUnsafeBytes { bytes in
                try decoder.decode(bytes) { (_) throws(ContentDecodingError) in
                    calls += 1
                    throw stop
                }
            }
        }
        #expect(calls == 1)
        #expect(throws: stop) { try decoder.finish() }
        #expect(throws: stop) {
            try encoded.withUnsafeBytes { bytes in try decoder.decode(bytes) { _ in } }
        }
    }
}
