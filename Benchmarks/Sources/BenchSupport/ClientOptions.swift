/// What one client process is asked to do: the command-line contract between `bench-driver`
/// and the Swift clients (`bench-ferry`, `bench-ahc`, `bench-urlsession`).
///
/// ```
/// bench-<client> --url URL --count N [--concurrency C] --body-bytes B
///                [--mode memory|stream|download|decode|upload] [--output FILE] [--input FILE]
///                [--cacert PEM] [--connection-close] [--no-resume] [--limit-rate BYTES]
/// ```
/// Every client prints one line `result requests=N bytes=B seconds=S` on success (`decode`
/// adds `checksum=C`, the sum of the documents' checksums; `seconds` is the time from the first
/// request to the last body byte, measured inside the process, which the C floor `bench-c`
/// leaves out) and exits 0; on any failure it prints `error: …` on standard error and exits 1.
public struct ClientOptions: Sendable {
    /// How a response body is consumed.
    public enum Mode: String, Sendable {
        /// The whole body in memory (small bodies: W1, W2, W5, W6).
        case memory
        /// Read chunk by chunk and discarded (W3, W4).
        case stream
        /// Streamed into the file named by ``ClientOptions/output`` (W7).
        case download
        /// A JSON ``BenchDocument`` decoded from each body and verified (W8).
        case decode
        /// The file named by ``ClientOptions/input`` uploaded as a multipart form's `file`
        /// part; `bodyBytes` is its size, and the server's answer says how much arrived (W9).
        case upload
    }

    /// The URL every request fetches.
    public var url: String
    /// Requests in all.
    public var count: Int
    /// Requests in flight at once (1: strictly sequential).
    public var concurrency = 1
    /// The exact body length every response must have.
    public var bodyBytes: Int64
    /// How bodies are consumed.
    public var mode = Mode.memory
    /// The download destination for ``Mode/download``.
    public var output: String?
    /// The file to upload for ``Mode/upload``.
    public var input: String?
    /// A PEM file of the only CA to trust for HTTPS.
    public var cacert: String?
    /// Send `Connection: close`, so every request runs on a new connection.
    public var connectionClose = false
    /// Allow TLS session resumption where the client has a switch for it.
    public var resumesSessions = true
    /// The most bytes per second each request may receive and send (curl's `--limit-rate`,
    /// W10 and W11); nil: no cap. Only `stream` and `upload` take it, and only a client with
    /// a cap: the others refuse it rather than run uncapped.
    public var limitRate: Int64?

    /// Parses the arguments after the program name.
    /// - Throws: ``BenchError`` naming the bad or missing argument.
    public init(arguments: [String]) throws(BenchError) {
        var url: String?
        var count: Int?
        var bodyBytes: Int64?
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            switch argument {
            case "--url": url = try reader.value(of: argument)
            case "--count": count = try reader.number(of: argument)
            case "--concurrency": concurrency = max(1, try reader.number(of: argument))
            case "--body-bytes": bodyBytes = Int64(try reader.number(of: argument))
            case "--mode":
                let text = try reader.value(of: argument)
                guard let parsed = Mode(rawValue: text) else { throw BenchError("--mode: unknown mode \(text)") }
                mode = parsed
            case "--output": output = try reader.value(of: argument)
            case "--input": input = try reader.value(of: argument)
            case "--cacert": cacert = try reader.value(of: argument)
            case "--connection-close": connectionClose = true
            case "--no-resume": resumesSessions = false
            case "--limit-rate": limitRate = Int64(try reader.number(of: argument, minimum: 1))
            default: throw BenchError("unknown argument \(argument)")
            }
        }
        guard let url else { throw BenchError("--url is required") }
        guard let count, count > 0 else { throw BenchError("--count is required (at least 1)") }
        guard let bodyBytes else { throw BenchError("--body-bytes is required") }
        if mode == .download, output == nil { throw BenchError("--mode download needs --output") }
        if mode == .upload, input == nil { throw BenchError("--mode upload needs --input") }
        if limitRate != nil, mode != .stream, mode != .upload {
            throw BenchError("--limit-rate applies to --mode stream and upload only")
        }
        self.url = url
        self.count = count
        self.bodyBytes = bodyBytes
    }
}
