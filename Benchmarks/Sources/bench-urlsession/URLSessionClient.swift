import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession client: FoundationNetworking, which runs libcurl underneath on Linux.
///
/// FoundationNetworking has no API for trusting a CA: ``SystemBundleOverride`` stands the
/// benchmark's CA in for the system bundle, before the process starts any thread.
@main
enum URLSessionClient {
    static func main() {
        let arguments = CommandLine.arguments
        if let flag = arguments.firstIndex(of: "--cacert"), flag + 1 < arguments.count {
            do {
                try SystemBundleOverride.trust(only: arguments[flag + 1])
            } catch {
                print("error: \(error)")
                exit(1)
            }
        }
        Task { await ClientMain.run(run) }
        dispatchMain()
    }

    static func run(_ options: ClientOptions) async throws -> ClientResult {
        guard options.limitRate == nil else { throw BenchError("URLSession has no bandwidth cap (--limit-rate)") }
        guard let url = URL(string: options.url) else { throw BenchError("bad URL \(options.url)") }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = max(options.concurrency, 6)
        configuration.timeoutIntervalForRequest = 120
        var request = URLRequest(url: url)
        if options.connectionClose {
            request.setValue("close", forHTTPHeaderField: "Connection")
        }
        switch options.mode {
        case .memory:
            let session = URLSession(configuration: configuration)
            defer { session.invalidateAndCancel() }
            return try await ClientMain.requests(options) { [request] _ in
                let (data, response) = try await session.data(for: request)
                return (status(response), Int64(data.count))
            }
        case .decode:
            // Foundation's JSONDecoder over the body data(for:) collected, as an app decodes.
            let session = URLSession(configuration: configuration)
            defer { session.invalidateAndCancel() }
            return try await ClientMain.documents(options) { [request] _ in
                let (data, response) = try await session.data(for: request)
                let document = try JSONDecoder().decode(BenchDocument.self, from: data)
                return (status(response), Int64(data.count), document)
            }
        case .upload:
            throw BenchError("URLSession has no multipart form builder; W9 runs Ferry and curl")
        case .stream:
            // A data task whose delegate sees each chunk and keeps none: the body is discarded.
            let counter = DiscardingDelegate()
            let session = URLSession(configuration: configuration, delegate: counter, delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            return try await ClientMain.requests(options) { [request] _ in
                try await counter.load(request, in: session)
            }
        case .download:
            let session = URLSession(configuration: configuration)
            defer { session.invalidateAndCancel() }
            let output = URL(fileURLWithPath: options.output ?? "")
            return try await ClientMain.requests(options) { [request] _ in
                // URLSession downloads into a temporary file of its own; moving it into place is
                // what an app does next (a rename on the same file system).
                let (location, response) = try await session.download(for: request)
                try? FileManager.default.removeItem(at: output)
                try FileManager.default.moveItem(at: location, to: output)
                return (status(response), try ClientMain.fileSize(output.path))
            }
        }
    }

    static func status(_ response: URLResponse) -> Int {
        (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

/// Counts body bytes for one data task at a time and drops them.
final class DiscardingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched only on the session's serial delegate queue, and by `load` before the task starts.
    private var received: Int64 = 0
    private var continuation: CheckedContinuation<(status: Int, bytes: Int64), any Error>?

    func load(_ request: URLRequest, in session: URLSession) async throws -> (status: Int, bytes: Int64) {
        try await withCheckedThrowingContinuation { continuation in
            session.delegateQueue.addOperation {
                self.received = 0
                self.continuation = continuation
                session.dataTask(with: request).resume()
            }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received += Int64(data.count)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let continuation = self.continuation
        self.continuation = nil
        if let error {
            continuation?.resume(throwing: error)
        } else {
            let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
            continuation?.resume(returning: (status, received))
        }
    }
}
