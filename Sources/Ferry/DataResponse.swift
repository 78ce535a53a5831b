import FerrySession
import FoundationEssentials

/// Everything a manager's task ended with: the request, the response, the body, the metrics
/// and the serialized value or the error (Alamofire's `DataResponse`). What the typed
/// completion handlers and async calls of ``SessionManager`` give.
public struct DataResponse<Value: Sendable>: Sendable {
    /// The task that ran, when a task ran.
    public let task: SessionTask?
    /// The request the task was made with.
    public let request: NetworkRequest
    /// The last response received, if a head arrived.
    public let response: NetworkResponse?
    /// The body as received (nil for a download, or when none arrived).
    public let data: Data?
    /// Where a download was moved, if it was.
    public let fileURL: URL?
    /// The task's metrics, once it completed.
    public let metrics: TaskMetrics?
    /// The serialized value, or why there is none: the task's error, or the serializer's.
    public let result: Result<Value, NetworkError>

    /// Creates a response record (for tests and for serializers of one's own).
    public init(task: SessionTask? = nil, request: NetworkRequest, response: NetworkResponse?, data: Data?,
                fileURL: URL? = nil, metrics: TaskMetrics? = nil, result: Result<Value, NetworkError>) {
        self.task = task
        self.request = request
        self.response = response
        self.data = data
        self.fileURL = fileURL
        self.metrics = metrics
        self.result = result
    }

    /// The value, on success.
    public var value: Value? { try? result.get() }

    /// The error, on failure.
    public var error: NetworkError? {
        guard case .failure(let error) = result else { return nil }
        return error
    }
}
