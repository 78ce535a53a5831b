// HTTPBinServer's byte-producing routes: patterns, ranges, compression, chunking, pacing.
import NIOCore
import NIOHTTP1

extension HTTPBinRouter {
    /// ETag and Last-Modified of every `/range/N` representation (If-Range compares them).
    static let rangeLastModified = "Thu, 01 Jan 2026 00:00:00 GMT"

    /// The byte-producing routes, or `nil` when the path is none of them.
    static func payloadResponse(
        for request: HTTPBinRequest, parts: [String], method: HTTPMethod, fallbackHost: String
    ) -> HTTPBinResponse? {
        let size = parts.count == 2 ? Int(parts[1]) : nil
        switch (parts.first ?? "", parts.count) {
        case ("bytes", 2), ("large", 2):
            guard let count = size, (0...Limits.patternBytes).contains(count) else { return sizeError() }
            return octets(.pattern(offset: 0, count: count, chunkSize: 64 * 1024, chunked: false))
        case ("stream-bytes", 2):
            guard let count = size, (0...Limits.patternBytes).contains(count) else { return sizeError() }
            guard let chunk = request.queryInt("chunk_size", default: 10 * 1024), chunk >= 1 else {
                return .badRequest("chunk_size must be 1 or more")
            }
            return octets(.pattern(offset: 0, count: count, chunkSize: chunk, chunked: true))
        case ("chunked", 1):
            guard let chunks = request.queryInt("n", default: 4), let chunk = request.queryInt("size", default: 16),
                (0...1_000_000).contains(chunks), (1...Limits.patternBytes).contains(chunk),
                chunks * chunk <= Limits.patternBytes
            else { return .badRequest("n must be 0...1000000 and size 1 or more, n * size at most 1 GiB") }
            return octets(.pattern(offset: 0, count: chunks * chunk, chunkSize: chunk, chunked: true))
        case ("range", 2):
            guard let count = size, (0...Limits.patternBytes).contains(count) else { return sizeError() }
            return range(request, size: count)
        case ("no-length", 1):
            guard let count = request.queryInt("size", default: 1024), (0...Limits.gzipBytes).contains(count) else {
                return sizeError()
            }
            return octets(.untilClose(TestBytes.pattern(count: count)))
        case ("drip", 1):
            return drip(request)
        case ("gzip", 1), ("deflate", 1), ("deflate-raw", 1):
            let format: ZlibFormat = parts[0] == "gzip" ? .gzip : parts[0] == "deflate" ? .zlib : .raw
            var document = HTTPBinJSON.echo(request, fallbackHost: fallbackHost)
            document[format == .gzip ? "gzipped" : "deflated"] = true
            var response = HTTPBinResponse(
                status: .ok, headers: ["Content-Type": "application/json"],
                body: .bytes(Zlib.compress(HTTPBinJSON.encode(document), format: format)))
            // Raw deflate is labelled "deflate" too: that is what the servers it imitates do.
            response.headers.add(name: "Content-Encoding", value: format == .gzip ? "gzip" : "deflate")
            return response
        case ("gzip-bytes", 2):
            guard let count = size, (0...Limits.gzipBytes).contains(count) else { return sizeError() }
            var response = octets(.bytes(Zlib.compress(TestBytes.pattern(count: count), format: .gzip)))
            response.headers.add(name: "Content-Encoding", value: "gzip")
            return response
        case ("gzip-bomb", 1):
            guard let count = request.queryInt("size", default: 10 << 20), (0...Limits.bombBytes).contains(count) else {
                return sizeError()
            }
            var response = octets(.bytes(Zlib.compressZeros(count: count, format: .gzip)))
            response.headers.add(name: "Content-Encoding", value: "gzip")
            return response
        default:
            return nil
        }
    }

    private static func octets(_ body: HTTPBinResponse.Body) -> HTTPBinResponse {
        HTTPBinResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: body)
    }

    private static func sizeError() -> HTTPBinResponse {
        .badRequest("size out of range")
    }

    // MARK: - Ranges (RFC 9110 §14)

    /// Which bytes a `Range` field selects.
    enum RangeSelection: Equatable {
        case full
        case partial(ClosedRange<Int>)
        case unsatisfiable
    }

    /// Parses a single `bytes=` range against `size`. Anything else (several ranges, other
    /// units, bad syntax) is ignored, which RFC 9110 §14.2 allows: the whole representation.
    static func parseRange(_ value: String, size: Int) -> RangeSelection {
        let text = value.trimmingSpaces
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { return .full }
        let spec = text.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else { return .full }
        let first = String(spec[..<dash]).trimmingSpaces
        let last = String(spec[spec.index(after: dash)...]).trimmingSpaces
        if first.isEmpty {
            guard let suffix = Int(last) else { return .full }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - suffix)...(size - 1))
        }
        guard let start = Int(first), start >= 0 else { return .full }
        var end = size - 1
        if !last.isEmpty {
            guard let parsed = Int(last), parsed >= start else { return .full }
            end = min(parsed, size - 1)
        }
        return start < size ? .partial(start...end) : .unsatisfiable
    }

    private static func range(_ request: HTTPBinRequest, size: Int) -> HTTPBinResponse {
        let etag = "\"range-\(size)\""
        var selection = request.header("range").map { parseRange($0, size: size) } ?? .full
        // RFC 9110 §13.1.5: a Range with a stale If-Range validator gets the full representation.
        if let validator = request.header("if-range")?.trimmingSpaces,
            validator != etag && validator != rangeLastModified
        {
            selection = .full
        }
        var response: HTTPBinResponse
        switch selection {
        case .full:
            response = octets(.pattern(offset: 0, count: size, chunkSize: 64 * 1024, chunked: false))
        case .partial(let bytes):
            response = octets(
                .pattern(offset: bytes.lowerBound, count: bytes.count, chunkSize: 64 * 1024, chunked: false))
            response.status = .partialContent
            response.headers.add(name: "Content-Range", value: "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)")
        case .unsatisfiable:
            response = HTTPBinResponse(status: .rangeNotSatisfiable)
            response.headers.add(name: "Content-Range", value: "bytes */\(size)")
        }
        response.headers.add(name: "Accept-Ranges", value: "bytes")
        response.headers.add(name: "ETag", value: etag)
        response.headers.add(name: "Last-Modified", value: rangeLastModified)
        return response
    }

    // MARK: - Pacing

    private static func drip(_ request: HTTPBinRequest) -> HTTPBinResponse {
        guard let count = request.queryInt("numbytes", default: 10), (0...Limits.dripBytes).contains(count),
            let duration = request.querySeconds("duration", default: 2), duration <= Limits.seconds,
            let delay = request.querySeconds("delay", default: 2), delay <= Limits.seconds,
            let code = request.queryInt("code", default: 200), (200...599).contains(code)
        else { return .badRequest("numbytes must be 0...\(Limits.dripBytes), duration and delay 0...60, code 200...599") }
        let interval = count > 0 ? duration / Double(count) : 0
        var response = octets(.drip(count: count, interval: timeAmount(interval)))
        response.status = HTTPResponseStatus(statusCode: code)
        response.delay = timeAmount(delay)
        return response
    }
}
