import FerryBase
import Dispatch
import FerryIO
import Synchronization

/// Watches whether the network, or one destination, is reachable: AFNetworkReachabilityManager
/// for Linux, over rtnetlink.
///
/// ```swift
/// let reachability = NetworkReachabilityManager.shared
/// reachability.setStatusChangeHandler(queue: .main) { status in print(status) }
/// try reachability.startMonitoring()
/// ```
///
/// - ``shared`` and ``init()`` watch general internet reachability: a default route (IPv4 or
///   IPv6) through an interface that is up, not loopback, and holds a usable address.
/// - ``init(address:)`` watches one address through the kernel's own route lookup for it,
///   asked again after every relevant change; ``init(domain:)`` resolves the name off the
///   event loop, again after every relevant change, and looks up each address.
///
/// Monitoring is event driven: a netlink socket joined to the link, address and route groups
/// sits on a FerryIO event loop; the kernel's tables are dumped at start (and after lost
/// messages), then changes are applied as they come and bursts are coalesced for 50 ms, so
/// one real change is reported once. Nothing polls and no packet is sent.
///
/// ``status`` is ``NetworkReachabilityStatus/unknown`` until the first dump has been read.
/// Every change is delivered three ways: to the status-change handler on its queue, as a
/// ``statusDidChangeNotification`` posted on that same queue (with the default
/// `ReachabilityNotifications` trait), and to every ``statusUpdates`` sequence. User code never
/// runs on the event loop's thread.
public final class NetworkReachabilityManager: Sendable {
    /// The shared manager for general internet reachability.
    public static let shared = NetworkReachabilityManager()

    /// How many undelivered statuses a ``statusUpdates`` sequence keeps; a consumer further
    /// behind loses the oldest (the newest status is what matters).
    public static let statusUpdatesBufferLimit = 64

    /// How a manager reaches the kernel: the default is the process's own network namespace
    /// and `/sys/class/net`; tests open the socket in a private namespace.
    package struct Environment: Sendable {
        /// Opens the rtnetlink socket (called by ``startMonitoring()``).
        package var openSocket: @Sendable () throws(SystemError) -> NetlinkSocket
        /// Classifies interfaces.
        package var classifier: InterfaceClassifier
        /// Called on the loop thread each time the socket reports lost messages (tests count
        /// the fresh dumps this causes).
        package var onMessagesLost: @Sendable () -> Void = {}
        /// The loop to run on; nil for the process-wide reachability loop.
        package var loop: EventLoop?
        /// The resolver of host names; nil for the process-wide one.
        package var resolver: Resolver?

        /// Creates an environment.
        package init(openSocket: @escaping @Sendable () throws(SystemError) -> NetlinkSocket, classifier: InterfaceClassifier) {
            self.openSocket = openSocket
            self.classifier = classifier
        }

        /// The calling process's namespace.
        package static let system = Environment(
            openSocket: { () throws(SystemError) in try NetlinkSocket.open() }, classifier: InterfaceClassifier())

        /// The namespace bound at `path`, without sysfs (which shows another namespace's
        /// interfaces).
        package static func namespace(at path: String, receiveBufferSize: Int32 = NetlinkSocket.defaultReceiveBufferSize) -> Environment {
            Environment(
                openSocket: { () throws(SystemError) in
                    try NetlinkSocket.open(inNetworkNamespaceAt: path, receiveBufferSize: receiveBufferSize)
                },
                classifier: InterfaceClassifier(sysfsRoot: nil))
        }
    }

    private struct State {
        var status = NetworkReachabilityStatus.unknown
        var handler: (@Sendable (NetworkReachabilityStatus) -> Void)?
        var queue: DispatchQueue
        var isMonitoring = false
        /// Counts starts and stops, so a status from a stopped run is never published.
        var session: UInt64 = 0
        var monitor: LoopBound<ReachabilityMonitor>?
        var streams: [UInt64: AsyncStream<NetworkReachabilityStatus>.Continuation] = [:]
        var nextStreamID: UInt64 = 0
    }

    private let target: ReachabilityStateMachine.Target
    private let environment: Environment
    private let state: Locked<State>

    // MARK: - Creating

    /// A manager for general internet reachability.
    public convenience init() {
        self.init(target: .internet, environment: .system)
    }

    /// A manager for one host name, as AFNetworkReachabilityManager's `managerForDomain:`.
    ///
    /// The name is resolved on a resolver thread when monitoring starts and again after every
    /// relevant network change (never on a timer); the status is that of the first resolved
    /// address the kernel has a route to. A name that does not resolve is not reachable.
    /// - Parameter domain: The host name (a numeric address works too).
    public convenience init(domain: String) {
        self.init(target: .host(domain), environment: .system)
    }

    /// A manager for one numeric address, as AFNetworkReachabilityManager's
    /// `managerForAddress:`.
    /// - Parameter address: An IPv4 or IPv6 address such as `192.0.2.7` or `2001:db8::7`.
    /// - Throws: ``ReachabilityError`` with ``ReachabilityError/Reason/invalidAddress(_:)`` when
    ///   `address` is not numeric.
    public convenience init(address: String) throws(ReachabilityError) {
        guard let parsed = IPAddress(address) else { throw ReachabilityError(.invalidAddress(address)) }
        self.init(target: .address(parsed), environment: .system)
    }

    /// A manager for `target` in `environment` (tests: a private network namespace).
    package init(target: ReachabilityStateMachine.Target, environment: Environment) {
        self.target = target
        self.environment = environment
        state = Locked(State(queue: DispatchQueue(label: "ferry.reachability.delivery")))
    }

    deinit {
        let (monitor, streams) = state.withLock { state in
            defer { state.streams = [:] }
            return (state.monitor, Array(state.streams.values))
        }
        if let monitor, let loop = try? eventLoop() {
            loop.execute { monitor.value.stop() }
        }
        for stream in streams { stream.finish() }
    }

    // MARK: - Status

    /// The current status; ``NetworkReachabilityStatus/unknown`` before the first dump was
    /// read. After ``stopMonitoring()`` it keeps the last status seen, as AFNetworking does.
    public var status: NetworkReachabilityStatus { state.withLock { $0.status } }

    /// Reachable through any interface.
    public var isReachable: Bool { status.isReachable }
    /// Reachable through a cellular (WWAN) interface.
    public var isReachableViaWWAN: Bool { status.interfaceKind == .wwan }
    /// Reachable through a Wi-Fi interface.
    public var isReachableViaWiFi: Bool { status.interfaceKind == .wifi }
    /// Reachable through an Ethernet interface.
    public var isReachableViaEthernet: Bool { status.interfaceKind == .ethernet }

    /// Sets (or, with nil, removes) the block called after every status change.
    ///
    /// The handler and ``statusDidChangeNotification`` are delivered in order on `queue`: by
    /// default a serial queue the manager owns. `DispatchQueue.main` works too, but only in a
    /// program that runs the main queue (an `async` main, `dispatchMain()` or a run loop),
    /// which on Linux not every program does.
    /// - Parameters:
    ///   - queue: Where the handler runs; nil keeps the manager's own serial queue.
    ///   - handler: Called with each new status.
    public func setStatusChangeHandler(
        queue: DispatchQueue? = nil, _ handler: (@Sendable (NetworkReachabilityStatus) -> Void)?
    ) {
        state.withLock { state in
            state.handler = handler
            if let queue { state.queue = queue }
        }
    }

    /// The current status followed by every change, for `for await`.
    ///
    /// Each access makes a new sequence; it ends when the manager is released. Statuses a
    /// slow consumer has not taken are buffered up to ``statusUpdatesBufferLimit``.
    public var statusUpdates: AsyncStream<NetworkReachabilityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: NetworkReachabilityStatus.self, bufferingPolicy: .bufferingNewest(Self.statusUpdatesBufferLimit))
        let id = state.withLock { state -> UInt64 in
            let id = state.nextStreamID
            state.nextStreamID += 1
            state.streams[id] = continuation
            // Under the lock, so no change slips in between; no reader waits yet to be resumed.
            continuation.yield(state.status)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: - Monitoring

    /// Starts watching. Does nothing when already watching.
    ///
    /// Opens and binds the netlink socket at once (so a failure is reported here), then the
    /// event loop dumps the kernel's tables; the first status follows within milliseconds.
    /// - Throws: ``ReachabilityError`` with ``ReachabilityError/Reason/system(_:)`` when the
    ///   loop thread or the socket cannot be created.
    public func startMonitoring() throws(ReachabilityError) {
        let session = state.withLock { state -> UInt64? in
            guard !state.isMonitoring else { return nil }
            state.isMonitoring = true
            state.session += 1
            return state.session
        }
        guard let session else { return }
        let loop: EventLoop
        let socket: NetlinkSocket
        do throws(SystemError) {
            loop = try eventLoop()
            socket = try environment.openSocket()
        } catch {
            state.withLock { state in
                if state.session == session { state.isMonitoring = false }
            }
            throw ReachabilityError(.system(error))
        }
        let classifier = environment.classifier
        let machine = ReachabilityStateMachine(target: target, portID: socket.portID) { name, type in
            classifier.kind(name: name, hardwareType: type)
        }
        let monitor = ReachabilityMonitor(
            loop: loop, socket: socket, machine: machine, resolver: { [environment] in environment.resolver ?? Self.sharedResolver },
            onMessagesLost: environment.onMessagesLost, publish: { [weak self] status in self?.publish(status, session: session) })
        let bound = LoopBound(monitor)
        let current = state.withLock { state -> Bool in
            guard state.session == session else { return false }
            state.monitor = bound
            return true
        }
        // Stopped while the socket was being opened: the monitor never starts and its
        // release closes the socket.
        guard current else { return }
        loop.execute { bound.value.start() }
    }

    /// Stops watching and closes the socket. ``status`` keeps its last value. Does nothing
    /// when not watching.
    public func stopMonitoring() {
        let monitor = state.withLock { state -> LoopBound<ReachabilityMonitor>? in
            guard state.isMonitoring else { return nil }
            state.isMonitoring = false
            state.session += 1
            defer { state.monitor = nil }
            return state.monitor
        }
        guard let monitor, let loop = try? eventLoop() else { return }
        loop.execute { monitor.value.stop() }
    }

    /// Called on the loop thread with a status the state machine reported.
    private func publish(_ status: NetworkReachabilityStatus, session: UInt64) {
        typealias Delivery = (
            queue: DispatchQueue, handler: (@Sendable (NetworkReachabilityStatus) -> Void)?,
            streams: [AsyncStream<NetworkReachabilityStatus>.Continuation]
        )
        let delivery = state.withLock { state -> Delivery? in
            guard state.session == session, state.status != status else { return nil }
            state.status = status
            // The sequences that exist as the status changes, taken with it: one made later
            // starts with this status, so each sequence sees each status exactly once.
            return (state.queue, state.handler, Array(state.streams.values))
        }
        guard let (queue, handler, streams) = delivery else { return }
        // Yielded after the lock is released: a yield may resume the reader's task, and a
        // cancelled reader's `onTermination` takes this lock while holding that task's own
        // (Swift's rule: resume no continuation while holding a lock a cancellation handler takes).
        // Statuses come from the loop thread only, so they still arrive in order.
        for stream in streams { stream.yield(status) }
        queue.async {
            handler?(status)
            #if ReachabilityNotifications
            self.postStatusDidChangeNotification(status)
            #endif
        }
    }

    // MARK: - Shared threads

    private func eventLoop() throws(SystemError) -> EventLoop {
        let loop: EventLoop
        if let injected = environment.loop {
            loop = injected
        } else {
            loop = try Self.sharedGroup.get().loops[0]
        }
        // Here, so that a thread that cannot be started is reported by startMonitoring().
        try loop.startIfNeeded()
        return loop
    }

    /// One event loop thread serves every manager in the process: reachability is a few
    /// messages a minute, so it does not need more, and it is created on first use only.
    private static let sharedGroup = Result { () throws(SystemError) in try EventLoopGroup(loopCount: 1) }
    /// One resolver thread for the managers of host names, started by the first lookup only.
    private static let sharedResolver = Resolver(threadCount: 1)
}
