import FerryEngine

extension FuzzTarget {
    /// gzip and deflate decoding under the bomb limits, a differential check: the body decoded
    /// whole and decoded in two pieces (split where the input's second byte says) must give the
    /// same bytes, or fail alike (the one's output then starts the other's), unless a limit
    /// stopped either (the expansion ratio is judged as bytes come, so where a piece ends may
    /// change when it trips). The decoded size never passes the limit.
    static let contentDecoding = FuzzTarget(
        name: "content-decoding",
        summary: "Content-Encoding gzip, deflate (zlib and raw) and stacked encodings, with the decompression-bomb limits; whole against split"
    ) { input in
        guard input.count >= 2 else { return }
        let encodings = ["gzip", "deflate", "gzip, deflate", "deflate, gzip", "gzip, gzip, gzip, gzip", "identity, gzip", "deflate, deflate", "x-gzip"]
        let encoding = encodings[Int(input[0]) % encodings.count]
        let body = UnsafeRawBufferPointer(rebasing: input[2...])
        let limits = DecodingLimits(maxDecodedBytes: 1 << 20, maxExpansionRatio: 100, ratioGraceBytes: 64 << 10, maxStackedEncodings: 4)
        let whole = ContentDecodingTrace.decode(body, encoding: encoding, limits: limits, split: nil)
        let split = ContentDecodingTrace.decode(body, encoding: encoding, limits: limits, split: Int(input[1]) * body.count / 256)
        for trace in [whole, split] {
            FuzzTarget.check(trace.bytes.count <= 1 << 20, "decoded \(trace.bytes.count) bytes past the 1 MiB limit")
        }
        guard !whole.hitLimit, !split.hitLimit else { return }
        let differ = "whole and split decoding differ: \(whole.error ?? "ok") \(whole.bytes.count) bytes, \(split.error ?? "ok") \(split.bytes.count) bytes"
        FuzzTarget.check(whole.error == split.error, differ)
        if whole.error == nil {
            FuzzTarget.check(whole.bytes == split.bytes, differ)
        } else {
            // Corrupt data fails both ways, but how much came out before zlib noticed depends on
            // where the input was cut: one output is the start of the other.
            let (shorter, longer) = whole.bytes.count <= split.bytes.count ? (whole.bytes, split.bytes) : (split.bytes, whole.bytes)
            FuzzTarget.check(longer.starts(with: shorter), differ)
        }
    }
}

/// What one decoding produced: its bytes and how it ended.
struct ContentDecodingTrace {
    var bytes: [UInt8] = []
    var error: String?
    var hitLimit = false

    static func decode(_ body: UnsafeRawBufferPointer, encoding: String, limits: DecodingLimits, split: Int?) -> Self {
        var trace = Self()
        do throws(ContentDecodingError) {
            guard let decoder = try ContentDecoder.make(contentEncoding: encoding, limits: limits) else {
                trace.bytes = Array(body)
                return trace
            }
            let pieces = split.map { [body[..<$0], body[$0...]] } ?? [body[...]]
            for piece in pieces {
                try decoder.decode(UnsafeRawBufferPointer(rebasing: piece)) { output throws(ContentDecodingError) in
                    trace.bytes += output
                }
            }
            try decoder.finish()
        } catch {
            trace.error = "\(error.kind)"
            trace.hitLimit = error.kind == .decodedSizeLimitExceeded || error.kind == .expansionRatioExceeded
        }
        return trace
    }
}
