import BenchSupport
import Ferry
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The Ferry client: the library's public async API, as an app would use it. With
/// `FERRY_BENCH_EXECUTOR=loop` (the `ferry-loop` row) the workload runs with a preference for
/// the session's loop executor (`Session.taskExecutor(for:)`), as a caller that awaits one
/// request after another would run it to spare the thread switches. W8, W9 and W11 go through
/// `HTTPSessionManager` instead (``ManagerWorkloads``). W10's cap (`--limit-rate`) is the task's
/// own: `maximumDownloadBytesPerSecond` (and upload, as curl caps both) on the data task made
/// for the request.
@main
enum FerryClient {
    static func main() async {
        await ClientMain.run(run)
    }

    static func run(_ options: ClientOptions) async throws -> ClientResult {
        guard let url = URL(string: options.url) else { throw BenchError("bad URL \(options.url)") }
        var configuration = SessionConfiguration()
        // W2's 32 in flight need 32 connections (the default allows 6 per host, as URLSession).
        configuration.httpMaximumConnectionsPerHost = max(options.concurrency, 1)
        configuration.tlsConfiguration.resumesSessions = options.resumesSessions
        if let cacert = options.cacert {
            configuration.tlsConfiguration.trustStore = try TrustStore(contentsOf: URL(fileURLWithPath: cacert))
        }
        if options.mode == .decode || options.mode == .upload {
            return try await ManagerWorkloads.run(options, url: url, configuration: configuration)
        }
        let session = Session(configuration: configuration)
        defer { session.invalidateAndCancel() }
        var request = NetworkRequest(url: url)
        if options.connectionClose {
            try request.setValue("close", forHTTPHeaderField: "Connection")
        }

        return try await withTaskExecutorPreference(preferredExecutor(session, url)) {
            try await load(options, session: session, request: request)
        }
    }

    /// The executor a `ferry-loop` run prefers: the loop serving `url` in `session`; nil otherwise.
    static func preferredExecutor(_ session: Session, _ url: URL) -> (any TaskExecutor)? {
        getenv("FERRY_BENCH_EXECUTOR").map { String(cString: $0) } == "loop" ? session.taskExecutor(for: url) : nil
    }

    private static func load(_ options: ClientOptions, session: Session, request: NetworkRequest) async throws -> ClientResult {
        switch options.mode {
        case .decode, .upload:
            throw BenchError("\(options.mode) runs through HTTPSessionManager")
        case .memory:
            return try await ClientMain.requests(options) { [request] _ in
                let (data, response) = try await session.data(for: request)
                return (response.statusCode, Int64(data.count))
            }
        case .stream:
            return try await ClientMain.requests(options) { [request] _ in
                let (body, response) = try await bytes(for: request, in: session, limitRate: options.limitRate)
                var received: Int64 = 0
                for try await chunk in body { received += Int64(chunk.count) }
                return (response.statusCode, received)
            }
        case .download:
            let output = URL(fileURLWithPath: options.output ?? "")
            return try await ClientMain.requests(options) { [request] _ in
                let response = try await session.download(for: request, to: output)
                return (response.statusCode, try ClientMain.fileSize(output.path))
            }
        }
    }

    /// `session.bytes(for:)`; with a cap, the same through a data task made first, so the cap
    /// is set before it starts (a task's cap applies from its next request).
    private static func bytes(for request: NetworkRequest, in session: Session,
                              limitRate: Int64?) async throws(NetworkError) -> (ResponseBody, NetworkResponse) {
        guard let limitRate else { return try await session.bytes(for: request) }
        let task = session.dataTask(with: request)
        task.maximumDownloadBytesPerSecond = limitRate
        task.maximumUploadBytesPerSecond = limitRate
        return try await task.bytes()
    }
}
