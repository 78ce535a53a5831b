import FerryBase
import Dispatch
import FerryEngine
import FerryIO
import FerryTLS
import FerryWire
import FoundationEssentials
import Synchronization

/// Loads requests over HTTP/1.1 with Ferry's engine: the counterpart of `URLSession`.
///
/// A session owns its event loops and connection pool; requests to the same host reuse
/// keep-alive connections (at most ``SessionConfiguration/httpMaximumConnectionsPerHost`` at
/// once). Every request runs as a ``SessionTask``: made suspended by a factory method such as
/// ``dataTask(with:completionHandler:)`` and started with ``SessionTask/resume()``, or run and
/// awaited by an async call such as ``data(for:delegate:)``. Create one session per
/// configuration, share it, and call ``finishTasksAndInvalidate()`` or
/// ``invalidateAndCancel()`` when done. A session lives at least as long as its running tasks.
///
/// ```swift
/// let session = Session()
/// let (data, response) = try await session.data(for: NetworkRequest(url: url))
/// ```
public final class Session: Sendable {
    /// A session with the default configuration, for simple requests (URLSession's `shared`).
    /// It cannot be invalidated.
    public static let shared = Session(sharedSessionWith: .default)

    /// The configuration the session was created with (a copy).
    public let configuration: SessionConfiguration
    /// The serial queue on which delegate methods and completion handlers run.
    public let delegateQueue: DispatchQueue
    private let engine: Result<HTTPClientEngine, SystemError>
    private let tls: LazyTLSContext
    private let registry: Locked<TaskRegistry>
    private let lastTaskIdentifier = Atomic<Int>(0)
    private let isShared: Bool
    /// Basic answers accepted so far, sent before the server asks.
    let preemptiveAuthentication = PreemptiveAuthentication()
    /// Which proxy carries a request, settled from the configuration when the session is made.
    let proxies: ProxyRoutes
    /// The caps all the session's tasks share; nil for none.
    let bandwidth: BandwidthLimits?

    /// Creates a session.
    /// - Parameters:
    ///   - configuration: How the session behaves.
    ///   - delegate: Receives session events, and the events of tasks without a delegate of
    ///     their own when it also conforms to ``SessionTaskDelegate``. The session keeps it
    ///     until it is invalidated.
    ///   - delegateQueue: Where delegate methods and completion handlers run; a new serial
    ///     queue by default.
    public convenience init(configuration: SessionConfiguration = .default, delegate: (any SessionDelegate)? = nil,
                            delegateQueue: DispatchQueue? = nil) {
        self.init(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue, isShared: false)
    }

    private convenience init(sharedSessionWith configuration: SessionConfiguration) {
        self.init(configuration: configuration, delegate: nil, delegateQueue: nil, isShared: true)
    }

    private init(configuration: SessionConfiguration, delegate: (any SessionDelegate)?, delegateQueue: DispatchQueue?,
                 isShared: Bool) {
        self.configuration = configuration
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "ferry.session.delegate")
        self.isShared = isShared
        proxies = ProxyRoutes(configuration.proxy, environment: ProcessInfo.processInfo.environment)
        bandwidth = BandwidthLimits.session(downloadBytesPerSecond: configuration.maximumDownloadBytesPerSecond,
                                            uploadBytesPerSecond: configuration.maximumUploadBytesPerSecond)
        // The challenge reaches the delegate with the session itself, held weakly: the check
        // lives in the session's engine, which the session owns.
        let reference = WeakSession()
        var challenger: ServerTrustGate.Challenger?
        if let delegate {
            challenger = { challenge, answer in
                guard let session = reference.session else { return answer(.cancelAuthenticationChallenge, nil) }
                delegate.session(session, didReceive: challenge, completionHandler: answer)
            }
        }
        // How connections are opened is the session's, once, not each request's.
        var resolved: [String: String] = [:]
        for (host, address) in configuration.resolvedAddresses { resolved[host.lowercased()] = address }
        let queue = self.delegateQueue
        let connect = ConnectSettings(
            timeout: configuration.timeoutIntervalForConnect, resolvedAddresses: resolved,
            serverTrustCheck: ServerTrustGate.check(for: configuration, queue: queue, challenger: challenger),
            clientIdentityProvider: challenger.map { ClientIdentityGate.provider(queue: queue, challenger: $0) })
        do throws(SystemError) {
            engine = .success(try HTTPClientEngine(
                loopCount: configuration.eventLoopCount,
                maxConnectionsPerHost: configuration.httpMaximumConnectionsPerHost,
                idleTimeout: configuration.connectionIdleTimeout,
                connect: connect))
        } catch {
            engine = .failure(error)
        }
        // With a delegate, a server's request for a client certificate becomes its challenge
        // (when the configuration has no identity of its own).
        tls = LazyTLSContext(configuration: configuration.transportSecurity.applied(to: configuration.tlsConfiguration),
                             asksForClientIdentity: delegate != nil)
        registry = Locked(TaskRegistry(delegate: delegate))
        reference.session = self
    }

    deinit {
        // Joining the loop threads must not happen on one of them (the last reference may be
        // dropped there), so shut down from a global queue.
        if case .success(let engine) = engine {
            DispatchQueue.global().async { engine.shutdown() }
        }
    }

    /// The session's delegate, until the session is invalidated.
    public var delegate: (any SessionDelegate)? { registry.withLock { $0.delegate } }

    // MARK: - Invalidation

    /// Cancels every running task, closes every connection and stops the engine's threads;
    /// then tells the delegate ``SessionDelegate/session(_:didBecomeInvalidWithError:)``.
    /// Tasks resumed afterwards fail with ``NetworkError/Code/sessionInvalidated``. Calling it
    /// again does nothing; the ``shared`` session ignores it.
    public func invalidateAndCancel() {
        guard !isShared else { return }
        let (tasks, delegate) = registry.withLock { $0.invalidate(cancelling: true) }
        for task in tasks { task.cancel() }
        if case .success(let engine) = engine { engine.shutdown() }
        if let delegate { announceInvalidation(to: delegate) }
    }

    /// Lets the running tasks finish, then invalidates the session as
    /// ``invalidateAndCancel()`` does. Tasks resumed afterwards fail with
    /// ``NetworkError/Code/sessionInvalidated``; the ``shared`` session ignores it.
    public func finishTasksAndInvalidate() {
        guard !isShared else { return }
        let (_, delegate) = registry.withLock { $0.invalidate(cancelling: false) }
        if let delegate { shutDownAfterLastTask(announcingTo: delegate) }
    }

    /// Closes every idle keep-alive connection, so later requests open new ones; running tasks
    /// keep theirs. `completionHandler` runs on the delegate queue once it is done. (Ferry
    /// keeps no cookie or credential on disk yet: there is nothing else to flush.)
    public func flush(completionHandler: @escaping @Sendable () -> Void) {
        guard case .success(let engine) = engine else { return delegateQueue.async(execute: completionHandler) }
        let queue = delegateQueue
        engine.closeIdleConnections { queue.async(execute: completionHandler) }
    }

    /// ``flush(completionHandler:)``, awaited.
    public func flush() async {
        await withCheckedContinuation { continuation in flush { continuation.resume() } }
    }

    /// Does what ``flush(completionHandler:)`` does and also forgets the TLS sessions and the
    /// verdicts on server chains the session kept, so every later connection makes a full
    /// handshake and has its chain verified afresh.
    public func reset(completionHandler: @escaping @Sendable () -> Void) {
        tls.builtContext?.forgetSessions()
        flush(completionHandler: completionHandler)
    }

    /// ``reset(completionHandler:)``, awaited.
    public func reset() async {
        await withCheckedContinuation { continuation in reset { continuation.resume() } }
    }

    /// The tasks that were resumed and have not completed yet (suspended ones included).
    public var allTasks: [SessionTask] {
        registry.withLock { $0.running }.sorted { $0.taskIdentifier < $1.taskIdentifier }
    }

    /// Calls `completionHandler` on the delegate queue with ``allTasks``.
    public func getAllTasks(completionHandler: @escaping @Sendable ([SessionTask]) -> Void) {
        let tasks = allTasks
        delegateQueue.async { completionHandler(tasks) }
    }

    /// Calls `completionHandler` on the delegate queue with the running data, upload and
    /// download tasks (URLSession's `getTasksWithCompletionHandler`).
    public func getTasksWithCompletionHandler(
        _ completionHandler: @escaping @Sendable ([DataTask], [UploadTask], [DownloadTask]) -> Void
    ) {
        let tasks = allTasks
        let uploads = tasks.compactMap { $0 as? UploadTask }
        let data = tasks.compactMap { $0 as? DataTask }.filter { !($0 is UploadTask) }
        let downloads = tasks.compactMap { $0 as? DownloadTask }
        delegateQueue.async { completionHandler(data, uploads, downloads) }
    }

    // MARK: - Tasks (package side)

    /// A new task identifier.
    func nextTaskIdentifier() -> Int {
        lastTaskIdentifier.add(1, ordering: .relaxed).newValue
    }

    /// A task starts: the session keeps it until it completes.
    /// - Returns: The session-wide task delegate, for tasks without their own.
    /// - Throws: ``NetworkError/Code/sessionInvalidated`` once the session was invalidated.
    /// - Parameter succeeding: The task takes over a registered task's exchange
    ///   (``ResponseDisposition/becomeDownload``): a session finishing its tasks takes it too.
    func register(_ task: SessionTask, succeeding: Bool = false) throws(NetworkError) -> (any SessionTaskDelegate)? {
        let registered = registry.withLock { $0.register(task, succeeding: succeeding) }
        guard let registered else {
            throw NetworkError(SessionFailure.sessionInvalidated, url: task.originalRequest.url)
        }
        return registered
    }

    /// The session delegate as a task delegate, for a task without its own; nil once the
    /// session stopped taking tasks.
    var sessionWideTaskDelegate: (any SessionTaskDelegate)? { registry.withLock { $0.taskDelegate } }

    /// A task completed. Returns, when it was the last task of a session finishing its tasks,
    /// the invalidation to pass to ``shutDownAfterLastTask(announcingTo:)`` once the task's
    /// own delegate calls are on their way (they come first, as URLSession's).
    func unregister(_ task: SessionTask) -> TaskRegistry.Invalidated? {
        registry.withLock { $0.unregister(task) }
    }

    /// Shuts the engine down and tells the delegate the session became invalid.
    func shutDownAfterLastTask(announcingTo delegate: TaskRegistry.Invalidated) {
        // Never on a loop thread (the last task may end there): shutting down joins them.
        DispatchQueue.global().async { [self] in
            if case .success(let engine) = engine { engine.shutdown() }
            announceInvalidation(to: delegate)
        }
    }

    private func announceInvalidation(to invalidated: TaskRegistry.Invalidated) {
        guard let delegate = invalidated.delegate else { return }
        delegateQueue.async { [self] in delegate.session(self, didBecomeInvalidWithError: nil) }
    }

    /// The pool key and engine that would run a request for `url` (nothing is prepared: no
    /// cookie, credential or TLS context is looked at, so the key picks the loop, by
    /// ``PoolKey/loopAffinity``, but may not name the connections); nil when it cannot run.
    func route(of url: URL) -> (PoolKey, HTTPClientEngine)? {
        guard let exchange = try? RequestPreparation.exchangeRequest(
                  for: NetworkRequest(url: url), configuration: configuration, proxies: proxies),
              let engine = try? runningEngine(for: url)
        else { return nil }
        return (exchange.key, engine)
    }

    /// The engine's form of `request` (waiting for a connection with `priority`, under the
    /// task's `bandwidth` caps and the session's), with the session's cookies and any Basic
    /// answer it sends up front (returned, so the task counts it as tried), and the engine to
    /// run it on.
    /// - Parameter expectingContinue: A large body may wait for `100 Continue` (false once a
    ///   server refused the expectation with 417).
    func prepare(_ request: NetworkRequest, priority: Float, bandwidth taskCaps: BandwidthLimits?,
                 expectingContinue: Bool = true) throws(NetworkError)
        -> (ExchangeRequest, HTTPClientEngine, PreemptiveAuthentication.Answer?) {
        var exchange = try RequestPreparation.exchangeRequest(for: request, configuration: configuration, proxies: proxies)
        if !expectingContinue { exchange.expectsContinueAbove = nil }
        try completeKey(&exchange.key, of: request.url)
        let engine = try runningEngine(for: request.url)
        let upFront = addHTTPState(to: &exchange.head.headerFields, for: request)
        exchange.priority = priority
        // Most requests have no body (and no body cap): its field is not read then.
        let bodyCap = request.body == nil ? nil : request.body?.maximumBytesPerSecond
        exchange.bandwidth = BandwidthLimits.forExchange(task: taskCaps, session: bandwidth, bodyBytesPerSecond: bodyCap)
        return (exchange, engine, upFront)
    }

    /// Gives an HTTPS pool key the session's TLS context, which keeps its connections apart
    /// from another context's.
    private func completeKey(_ key: inout PoolKey, of url: URL) throws(NetworkError) {
        guard key.scheme == "https" else { return }
        switch tls.context {
        case .success(let context):
            key.tls = context
        case .failure(let error):
            throw NetworkError(SessionFailure.tlsUnavailable(error), url: url)
        }
    }

    /// The session's engine, or why it could not start.
    private func runningEngine(for url: URL) throws(NetworkError) -> HTTPClientEngine {
        switch engine {
        case .success(let engine):
            return engine
        case .failure(let error):
            throw NetworkError(SessionFailure.engineUnavailable(error), url: url)
        }
    }
}

/// A weak reference to a session that closures made before it exists can hold.
private final class WeakSession: @unchecked Sendable {
    // Written once, in `Session.init`, before any request can run; read on the delegate queue.
    weak var session: Session?
}
