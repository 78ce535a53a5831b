// The state ForwardProxy's threads share with the test: sockets, settings, threads and what
// was seen.
import FerryBase
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Internal: owns the listening socket and the wake pipe, runs the accept loop on its own
/// thread and each client connection on a thread of its own, and keeps the record the test
/// reads. Separate from ``ForwardProxy`` so the threads do not keep the public object alive
/// (its `deinit` shuts down).
final class ForwardProxyCore: Sendable {
    /// What the test can read back; guarded by `record`.
    struct Record {
        var connections = 0
        var requests = 0
        var heads: [RecordedRequestHead] = []
        var tunnels = 0
        var tunnelTargets: [String] = []
        var connectAttempts: [String] = []
    }

    /// The settings a connection needs.
    struct Settings: Sendable {
        var refusal: ForwardProxy.ConnectRefusal?
        var ioTimeout: Duration
        var maxConnections: Int
        var maxRecorded: Int
        var headLimit = 64 * 1024
        var maxFields = 256
        /// How long a request with `Expect: 100-continue` waits for the origin's interim
        /// response before its body is sent anyway (curl waits one second).
        var continueTimeout: Duration = .seconds(1)
    }

    let sockets: ServerSockets
    var listener: Int32 { sockets.listener }
    var wakeRead: Int32 { sockets.wakeRead }
    let settings: Settings
    let authenticator: ProxyAuthenticator
    let record = Locked(Record())
    private let openConnections = Locked(0)
    /// Entered for the accept thread and for every connection thread; left as each ends.
    private let threads = DispatchGroup()

    init(sockets: ServerSockets, settings: Settings, authentication: ForwardProxy.Authentication) {
        self.sockets = sockets
        self.settings = settings
        authenticator = ProxyAuthenticator(authentication)
    }

    /// Starts the accept thread.
    func start(port: Int) {
        spawn(name: "ForwardProxy:\(port)") { self.acceptLoop() }
    }

    /// Runs `body` on a new thread counted in `threads`.
    private func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            body()
            threads.leave()
        }
        thread.name = name
        thread.start()
    }

    /// The accept loop; returns when the wake pipe fires.
    private func acceptLoop() {
        while true {
            // An hour per wait: the loop really ends through the wake pipe (shutdown or deinit).
            switch POSIXSocket.wait(fd: listener, events: Int16(POLLIN), wake: wakeRead, timeout: .seconds(3600)) {
            case .woken: return
            case .timedOut: continue
            case .ready: break
            }
            let fd: Int32
            do {
                guard let accepted = try POSIXSocket.accept(listener: listener) else { continue }
                fd = accepted
            } catch {
                // Do not spin on a persistent failure such as EMFILE.
                guard POSIXSocket.sleep(.milliseconds(50), wake: wakeRead) else { return }
                continue
            }
            record.withLock { $0.connections += 1 }
            let admitted = openConnections.withLock { open in
                guard open < settings.maxConnections else { return false }
                open += 1
                return true
            }
            guard admitted else {
                close(fd)
                continue
            }
            spawn(name: "ForwardProxy:connection") {
                var connection = ProxyConnection(core: self, fd: fd)
                connection.run()
                self.openConnections.withLock { $0 -= 1 }
            }
        }
    }

    /// Wakes every wait, joins the threads (at most 5 s) and closes the sockets. Idempotent.
    /// Blocks the calling thread: async code uses ``shutdownGracefully()``.
    func shutdown() {
        guard sockets.beginShutdown() else { return }
        // If a thread did not finish (it always should), leak the descriptors rather than
        // close ones it may still use.
        guard threads.wait(timeout: .now() + 5) == .success else { return }
        sockets.closeAll()
    }

    /// ``shutdown()`` that suspends instead of blocking while the threads end. Idempotent.
    func shutdownGracefully() async {
        guard sockets.beginShutdown() else { return }
        let finished = AsyncEvent()
        threads.notify(queue: .global()) { finished.set() }
        guard await finished.wait(timeout: .seconds(5)) else { return }
        sockets.closeAll()
    }

    // MARK: - Recording

    /// Records a request head (the oldest beyond `maxRecorded` are dropped).
    func recordRequest(_ head: ProxyRequestHead) {
        let recorded = head.recorded
        let limit = max(1, settings.maxRecorded)
        record.withLock { record in
            record.requests += 1
            if record.heads.count >= limit { record.heads.removeFirst(record.heads.count - limit + 1) }
            record.heads.append(recorded)
        }
    }

    /// Records an outbound connection attempt to `target` (`host:port`).
    func recordConnectAttempt(_ target: String) {
        let limit = max(1, settings.maxRecorded)
        record.withLock { record in
            if record.connectAttempts.count >= limit { record.connectAttempts.removeFirst() }
            record.connectAttempts.append(target)
        }
    }

    /// Records an opened tunnel to `target` (`host:port`).
    func recordTunnel(_ target: String) {
        let limit = max(1, settings.maxRecorded)
        record.withLock { record in
            record.tunnels += 1
            if record.tunnelTargets.count >= limit { record.tunnelTargets.removeFirst() }
            record.tunnelTargets.append(target)
        }
    }
}
