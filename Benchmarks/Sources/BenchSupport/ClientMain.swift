#if canImport(Glibc)
import Glibc
#endif

/// The shared body of every Swift client's `main`: parse the options, run the workload, check
/// each response, print the result line or the error, and exit.
public enum ClientMain {
    /// Runs `workload` with the process's arguments and exits the process.
    /// - Parameter workload: Loads `options.count` responses and returns the body bytes
    ///   received in all; it throws on the first failure.
    public static func run(_ workload: (ClientOptions) async throws -> Int64) async -> Never {
        do {
            let options = try ClientOptions(arguments: Array(CommandLine.arguments.dropFirst()))
            let bytes = try await workload(options)
            print("result requests=\(options.count) bytes=\(bytes)")
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
    /// - Returns: The body bytes of all requests together.
    /// - Throws: The first failure, or ``BenchError`` for a wrong status or body length.
    public static func requests(
        _ options: ClientOptions,
        _ load: @escaping @Sendable (_ index: Int) async throws -> (status: Int, bytes: Int64)
    ) async throws -> Int64 {
        let workers = min(options.concurrency, options.count)
        let expected = options.bodyBytes
        return try await withThrowingTaskGroup(of: Int64.self) { group in
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
