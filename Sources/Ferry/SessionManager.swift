import FerryBase
import Dispatch
import FerrySession
import FoundationEssentials
import Synchronization

/// Runs requests on a ``Session`` and turns each response into a value with a response
/// serializer: the counterpart of AFNetworking's `AFURLSessionManager`.
///
/// The manager owns its session and is that session's delegate: it collects each task's body,
/// reports upload and download progress, moves downloads where their destination says, passes
/// every session and task event to the blocks set with `setTaskDidComplete(_:)` and its
/// siblings, and calls each task's completion handler, after ``responseSerializer`` has
/// validated and decoded the response, on ``completionQueue`` (in ``completionGroup``).
///
/// ```swift
/// let manager = SessionManager()
/// let task = manager.dataTask(with: NetworkRequest(url: url)) { response, object, error in … }
/// task.resume()
/// ```
///
/// Server trust is judged by ``securityPolicy`` on every new TLS connection. Tasks made
/// through the manager carry a delegate of the manager's: replacing their
/// ``SessionTask/delegate`` takes their events away from it.
///
/// `@unchecked Sendable`: a class users subclass (as `AFHTTPSessionManager` subclasses
/// `AFURLSessionManager`); every stored property is a constant of a Sendable type or lives in
/// a `Locked` (a `Mutex`).
open class SessionManager: @unchecked Sendable {
    /// Reports a task's progress (``TaskProgress``) on the session's delegate queue.
    public typealias ProgressHandler = @Sendable (TaskProgress) -> Void
    /// Chooses where a finished download goes, given its temporary file and the response; a
    /// file there is replaced.
    public typealias DownloadDestination = @Sendable (_ temporaryURL: URL, _ response: NetworkResponse) -> URL

    struct State {
        var session: Session
        var responseSerializer: any ResponseSerializing
        var completionQueue: DispatchQueue?
        var completionGroup: DispatchGroup?
        var reachabilityManager: NetworkReachabilityManager
    }

    let state: Locked<State>
    let hooks: SessionManagerHooks
    private let ownCompletionQueue = DispatchQueue(label: "ferry.manager.completion")

    /// Where responses are serialized, off the session's delegate queue so that a large body
    /// being decoded holds up no other task's events (AFNetworking's processing queue).
    static let processingQueue = DispatchQueue(label: "ferry.manager.processing", attributes: .concurrent)

    /// A manager with a new session of `configuration`.
    /// - Parameter configuration: How the session behaves; its
    ///   ``SessionConfiguration/serverTrustEvaluator`` is replaced by ``securityPolicy``
    ///   (per-host evaluators are kept).
    public init(sessionConfiguration configuration: SessionConfiguration = .default) {
        let hooks = SessionManagerHooks(policy: .default)
        self.hooks = hooks
        state = Locked(State(session: Self.makeSession(configuration, hooks: hooks), responseSerializer: JSONResponseSerializer(),
                            completionQueue: nil, completionGroup: nil, reachabilityManager: .shared))
    }

    private static func makeSession(_ configuration: SessionConfiguration, hooks: SessionManagerHooks) -> Session {
        var configuration = configuration
        configuration.serverTrustEvaluator = ManagerTrustEvaluator(hooks: hooks)
        let delegate = SessionManagerSessionDelegate(hooks: hooks)
        return Session(configuration: configuration, delegate: delegate)
    }

    // MARK: Properties

    /// The session the manager's tasks run on.
    public var session: Session { state.withLock { $0.session } }

    /// Validates and decodes every response; JSON (``JSONResponseSerializer``) by default. A
    /// task reads it when it is made.
    public var responseSerializer: any ResponseSerializing {
        get { state.withLock { $0.responseSerializer } }
        set { state.withLock { $0.responseSerializer = newValue } }
    }

    /// ``responseSerializer`` with AFNetworking's `responseObject` as its value.
    var responseObjectSerializer: ResponseObjectSerializer { ResponseObjectSerializer(base: responseSerializer) }

    /// Judges the server of every new TLS connection: AFNetworking's default policy (a valid
    /// chain that names the host) unless set. Connections already open keep their verdict.
    public var securityPolicy: SecurityPolicy { hooks.policy }

    /// Sets ``securityPolicy``.
    /// - Throws: nothing here; ``HTTPSessionManager`` refuses a pinning policy for a base URL
    ///   that is not https.
    open func setSecurityPolicy(_ policy: SecurityPolicy) throws(NetworkError) {
        hooks.policy = policy
    }

    /// Watches the network; ``NetworkReachabilityManager/shared`` unless set. The manager
    /// does not start it: call ``NetworkReachabilityManager/startMonitoring()``.
    public var reachabilityManager: NetworkReachabilityManager {
        get { state.withLock { $0.reachabilityManager } }
        set { state.withLock { $0.reachabilityManager = newValue } }
    }

    /// Where completion handlers run; nil (the default) means a serial queue of the manager's.
    public var completionQueue: DispatchQueue? {
        get { state.withLock { $0.completionQueue } }
        set { state.withLock { $0.completionQueue = newValue } }
    }

    /// The group completion handlers run in, if any.
    public var completionGroup: DispatchGroup? {
        get { state.withLock { $0.completionGroup } }
        set { state.withLock { $0.completionGroup = newValue } }
    }

    /// The session's running tasks (resumed and not completed), in the order they were made.
    public var tasks: [SessionTask] { session.allTasks }
    /// The running data tasks (upload tasks not included).
    public var dataTasks: [DataTask] { tasks.compactMap { $0 as? DataTask }.filter { !($0 is UploadTask) } }
    /// The running upload tasks.
    public var uploadTasks: [UploadTask] { tasks.compactMap { $0 as? UploadTask } }
    /// The running download tasks.
    public var downloadTasks: [DownloadTask] { tasks.compactMap { $0 as? DownloadTask } }

    /// The upload progress of `task`: body bytes sent of the body's length.
    public func uploadProgress(for task: SessionTask) -> TaskProgress {
        TaskProgress(completedUnitCount: task.countOfBytesSent, totalUnitCount: task.countOfBytesExpectedToSend,
                     isFinished: task.state == .completed)
    }

    /// The download progress of `task`: body bytes received of the announced length.
    public func downloadProgress(for task: SessionTask) -> TaskProgress {
        TaskProgress(completedUnitCount: task.countOfBytesReceived, totalUnitCount: task.countOfBytesExpectedToReceive,
                     isFinished: task.state == .completed)
    }

    // MARK: Invalidation

    /// Invalidates the session: cancelling its running tasks, or letting them finish; the
    /// session delegate's invalidation block follows. With `resetSession`, the manager makes a
    /// new session of the same configuration for the tasks it makes next.
    public func invalidateSessionCancelingTasks(_ cancelPendingTasks: Bool, resetSession: Bool) {
        let old = state.withLock { state -> Session in
            let old = state.session
            if resetSession { state.session = Self.makeSession(old.configuration, hooks: hooks) }
            return old
        }
        if cancelPendingTasks { old.invalidateAndCancel() } else { old.finishTasksAndInvalidate() }
    }

    // MARK: Completion

    /// The step that runs when a task completes: `serializer` judges the response on the
    /// processing queue, then `handler` runs on the completion queue, in the completion group.
    func completion<Serializer: ResponseSerializing>(
        serializer: Serializer,
        _ handler: @escaping @Sendable (ManagerTaskOutcome, Result<Serializer.Value, NetworkError>) -> Void
    ) -> SessionManagerTaskDelegate.Finish {
        let deliver = completionDelivery()
        return { [hooks] outcome in
            Self.processingQueue.async {
                let result = Self.serialize(outcome, with: serializer)
                deliver {
                    handler(outcome, result)
                    hooks.announceCompletion(outcome, serializer: serializer, result: result)
                }
            }
        }
    }

    /// What `serializer` makes of a completed task: its value, or the task's error, or the
    /// serializer's.
    static func serialize<Serializer: ResponseSerializing>(_ outcome: ManagerTaskOutcome, with serializer: Serializer)
        -> Result<Serializer.Value, NetworkError> {
        if let error = outcome.error { return .failure(error) }
        guard let response = outcome.response else {
            return .failure(NetworkError(.badServerResponse, reason: "The task completed without a response",
                                         failingURL: outcome.task.originalRequest.url))
        }
        return Result { () throws(NetworkError) in try serializer.serialize(response, data: outcome.data) }
    }

    /// Runs work on the completion queue, in the completion group, as they are now.
    func completionDelivery() -> @Sendable (@escaping @Sendable () -> Void) -> Void {
        let (queue, group) = state.withLock { ($0.completionQueue ?? ownCompletionQueue, $0.completionGroup) }
        return { work in
            if let group { queue.async(group: group, execute: work) } else { queue.async(execute: work) }
        }
    }
}
