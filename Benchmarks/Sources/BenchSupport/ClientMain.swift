#if canImport(Glibc)
import Glibc
#endif

/// What a client run reports on its result line.
public struct ClientResult: Sendable {
    /// Body bytes received in all (for an upload: the file bytes the server says arrived).
    public var bytes: Int64
    /// For decoded documents (W8): the sum of every document's verified checksum.
    public var checksum: Int64?
    /// Seconds from the first request to the last body byte, timed in the process (start-up
    /// and set-up left out): what a capped transfer's achieved rate is read against (W10, W11).
    public var seconds: Double?

    public init(bytes: Int64, checksum: Int64? = nil, seconds: Double? = nil) {
        self.bytes = bytes
        self.checksum = checksum
        self.seconds = seconds
    }
}

/// The shared body of every Swift client's `main`: parse the options, run the workload, check
/// each response, print the result line or the error, and exit.
public enum ClientMain {
    /// Runs `workload` with the process's arguments and exits the process.
    /// - Parameter workload: Loads `options.count` responses and returns what it received in
    ///   all; it throws on the first failure.
    public static func run(_ workload: (ClientOptions) async throws -> ClientResult) async -> Never {
        do {
            let options = try ClientOptions(arguments: Array(CommandLine.arguments.dropFirst()))
            let result = try await workload(options)
            print("result requests=\(options.count) bytes=\(result.bytes)" + (result.checksum.map { " checksum=\($0)" } ?? "")
                + (result.seconds.map { " seconds=\($0)" } ?? ""))
            exit(0)
        } catch {
            let message = Array("error: \(error)\n".utf8)
            _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            exit(1)
        }
    }

    /// Runs `options.count` requests, `options.concurrency` at a time, each checked to have
    /// returned exactly `options.bodyBytes` bytes.
    /// - Parameter load: Performs request number `index` and returns its status and body length.
    /// - Returns: The body bytes of all requests together, and the seconds they took.
    /// - Throws: The first failure, or ``BenchError`` for a wrong status or body length.
    public static func requests(
        _ options: ClientOptions,
        _ load: @escaping @Sendable (_ index: Int) async throws -> (status: Int, bytes: Int64)
    ) async throws -> ClientResult {
        // Its own loop, not `spread`: W1 counts instructions per request, and a closure around
        // `load` would add an async frame to each (about 400 instructions).
        let workers = min(options.concurrency, options.count)
        let expected = options.bodyBytes
        let started = ContinuousClock.now
        let bytes = try await withThrowingTaskGroup(of: Int64.self) { group in
            // Worker w takes requests w, w + workers, w + 2·workers, … one after another, so
            // exactly `workers` requests are in flight until the tail.
            for worker in 0..<workers {
                group.addTask {
                    var total: Int64 = 0
                    for index in stride(from: worker, to: options.count, by: workers) {
                        let (status, bytes) = try await load(index)
                        try check(status: status, bytes: bytes, expected: expected, index: index)
                        total += bytes
                    }
                    return total
                }
            }
            var total: Int64 = 0
            for try await part in group { total += part }
            return total
        }
        return ClientResult(bytes: bytes, seconds: seconds(since: started))
    }

    /// Runs `options.count` requests for W8's JSON document, `options.concurrency` at a time,
    /// each checked to have returned status 200, exactly `options.bodyBytes` bytes and a
    /// document whose records match its checksum (``BenchDocument/verified()``).
    /// - Parameter load: Performs request number `index` and returns its status, body length
    ///   and decoded document.
    /// - Returns: The body bytes, the sum of the documents' checksums and the seconds taken.
    /// - Throws: The first failure, or ``BenchError`` for a wrong status, length or document.
    public static func documents(
        _ options: ClientOptions,
        _ load: @escaping @Sendable (_ index: Int) async throws -> (status: Int, bytes: Int64, document: BenchDocument)
    ) async throws -> ClientResult {
        let expected = options.bodyBytes
        let started = ContinuousClock.now
        let (bytes, checksum) = try await spread(options) { index in
            let (status, bytes, document) = try await load(index)
            try check(status: status, bytes: bytes, expected: expected, index: index)
            do {
                return (bytes, Int64(try document.verified()))
            } catch {
                throw BenchError("request \(index): \(error)")
            }
        }
        return ClientResult(bytes: bytes, checksum: checksum, seconds: seconds(since: started))
    }

    /// Seconds on the continuous clock since `start`.
    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Runs `options.count` calls of `load`, `options.concurrency` at a time, and sums the
    /// pairs they return.
    private static func spread(
        _ options: ClientOptions,
        _ load: @escaping @Sendable (_ index: Int) async throws -> (Int64, Int64)
    ) async throws -> (Int64, Int64) {
        let workers = min(options.concurrency, options.count)
        return try await withThrowingTaskGroup(of: (Int64, Int64).self) { group in
            // Worker w takes requests w, w + workers, w + 2·workers, … one after another, so
            // exactly `workers` requests are in flight until the tail.
            for worker in 0..<workers {
                group.addTask {
                    var total: (Int64, Int64) = (0, 0)
                    for index in stride(from: worker, to: options.count, by: workers) {
                        let part = try await load(index)
                        total = (total.0 + part.0, total.1 + part.1)
                    }
                    return total
                }
            }
            var total: (Int64, Int64) = (0, 0)
            for try await part in group { total = (total.0 + part.0, total.1 + part.1) }
            return total
        }
    }

    /// Fails unless a response had status 200 and exactly `expected` body bytes.
    /// - Throws: ``BenchError`` naming the request and what differed.
    public static func check(status: Int, bytes: Int64, expected: Int64, index: Int = 0) throws(BenchError) {
        guard status == 200 else { throw BenchError("request \(index): status \(status), expected 200") }
        guard bytes == expected else { throw BenchError("request \(index): \(bytes) body bytes, expected \(expected)") }
    }

    /// The size of a file on disk, for checking a download.
    /// - Throws: ``BenchError`` when the file cannot be examined.
    public static func fileSize(_ path: String) throws(BenchError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw BenchError("cannot stat \(path): errno \(errno)") }
        return Int64(info.st_size)
    }
}
