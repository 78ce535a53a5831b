// Helpers shared by the Session integration tests: configurations, JSON, error capture,
// temporary files, streamed bodies, a closed port, a time limit and a recording delegate.
#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import Dispatch
import Foundation
import HTTPTypes
import Synchronization
import Testing

@testable import FerrySession

enum SessionTest {
    /// A configuration with small defaults for tests (one loop is enough for one server), and
    /// cookie and credential storages of its own: tests run in parallel in one process.
    static func configuration(_ edit: (inout SessionConfiguration) -> Void = { _ in }) -> SessionConfiguration {
        var configuration = SessionConfiguration()
        configuration.eventLoopCount = 1
        configuration.httpCookieStorage = CookieStorage()
        configuration.urlCredentialStorage = CredentialStorage(fileURL: nil)
        // Whatever proxy the machine's environment names, tests talk to their own servers.
        configuration.proxy = .none
        edit(&configuration)
        return configuration
    }

    /// The body parsed as a JSON object.
    static func json(_ data: Data) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: data)
        return try #require(object as? [String: Any])
    }

    /// The `headers` object of an echo document.
    static func headers(_ json: [String: Any]) throws -> [String: String] {
        try #require(json["headers"] as? [String: String])
    }

    /// A path in the temporary directory that does not exist yet.
    static func temporaryURL(_ name: String) -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("ferry-it-\(UUID().uuidString)-\(name)")
    }

    /// The size of the file at `url`, or -1 when there is none.
    static func fileSize(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// A body stream that yields `chunks` in order, then ends.
    static func stream(_ chunks: [[UInt8]]) -> RequestBody.ByteChunks {
        AsyncThrowingStream<[UInt8], any Error> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
    }

    /// `bytes` cut into pieces of `size` (the last may be shorter).
    static func split(_ bytes: [UInt8], size: Int) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

}

/// Runs `body` and returns the ``NetworkError`` it threw, or `nil` when it succeeded (any
/// other error is recorded as an issue: the public API throws nothing else).
func networkError<T>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> NetworkError? {
    do {
        _ = try await body()
        return nil
    } catch let error as NetworkError {
        return error
    } catch {
        Issue.record("not a NetworkError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Seconds since `start`, on a monotonic clock.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

// MARK: - Recording delegate

/// Records every delegate call in order, with whether it ran on the expected queue.
final class RecordingDelegate: SessionDataDelegate, SessionDownloadDelegate {
    enum Event: Sendable {
        case sentHead(HTTPRequest, ConnectionInfo)
        case sentBody(bytes: Int64, total: Int64, expected: Int64?)
        case response(NetworkResponse)
        case data(Data)
        /// A download's progress report.
        case wrote(bytes: Int64, total: Int64, expected: Int64?)
        /// A download's file, and its contents read while it still existed.
        case downloaded(URL, Data?)
        case metrics(TaskMetrics)
        case completed(NetworkError?)
        /// The data task became a download task (their identifiers).
        case became(data: Int, download: Int)
    }

    private static let queueKey = DispatchSpecificKey<String>()
    /// The key that tags delegate queues, for other recorders in the tests.
    static var queueKeyForTests: DispatchSpecificKey<String> { queueKey }
    private let expectedQueueName: String
    private let state = Locked<(events: [Event], offQueueCalls: Int, lastTask: SessionTask?)>(([], 0, nil))
    /// The answer to a data task's response.
    private let disposition: ResponseDisposition

    /// Tags `queue` so calls can be checked to run on it.
    init(queue: DispatchQueue, disposition: ResponseDisposition = .allow) {
        let name = UUID().uuidString
        queue.setSpecific(key: Self.queueKey, value: name)
        expectedQueueName = name
        self.disposition = disposition
    }

    /// The task the last event was about.
    var lastTask: SessionTask? { state.withLock { $0.lastTask } }

    var events: [Event] { state.withLock { $0.events } }
    /// Calls that did not run on the delegate queue.
    var offQueueCalls: Int { state.withLock { $0.offQueueCalls } }

    var metrics: TaskMetrics? {
        for case .metrics(let metrics) in events { return metrics }
        return nil
    }

    var sentHead: HTTPRequest? {
        for case .sentHead(let head, _) in events { return head }
        return nil
    }

    /// A short name per event, for order assertions.
    var names: [String] {
        events.map { event in
            switch event {
            case .sentHead: return "head"
            case .sentBody: return "body"
            case .response: return "response"
            case .data: return "data"
            case .wrote: return "wrote"
            case .downloaded: return "downloaded"
            case .metrics: return "metrics"
            case .completed: return "complete"
            case .became: return "became"
            }
        }
    }

    /// The body bytes the data delegate received, joined.
    var receivedData: Data {
        var data = Data()
        for case .data(let piece) in events { data.append(piece) }
        return data
    }

    /// The error the task completed with, once it completed (`.some(nil)` for success).
    var completion: NetworkError?? {
        for case .completed(let error) in events { return .some(error) }
        return nil
    }

    private func record(_ event: Event, of task: SessionTask? = nil) {
        let onQueue = DispatchQueue.getSpecific(key: Self.queueKey) == expectedQueueName
        state.withLock {
            $0.events.append(event)
            if let task { $0.lastTask = task }
            if !onQueue { $0.offQueueCalls += 1 }
        }
    }

    func session(_ session: Session, task: SessionTask, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo) {
        record(.sentHead(head, connection))
    }

    func session(_ session: Session, task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64?) {
        record(.sentBody(bytes: bytesSent, total: totalBytesSent, expected: totalBytesExpectedToSend))
    }

    func session(_ session: Session, task: SessionTask, didReceive response: NetworkResponse) {
        record(.response(response))
    }

    func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        completionHandler(disposition)
    }

    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        record(.data(data))
    }

    func session(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) {
        record(.became(data: dataTask.taskIdentifier, download: downloadTask.taskIdentifier))
    }

    func session(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                 totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64?) {
        record(.wrote(bytes: bytesWritten, total: totalBytesWritten, expected: totalBytesExpectedToWrite), of: downloadTask)
    }

    func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        record(.downloaded(location, FileManager.default.contents(atPath: location.path)))
    }

    func session(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        record(.metrics(metrics))
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        record(.completed(error), of: task)
    }
}
