// The state ScriptedServer's thread shares with the test: sockets, scripts and what was seen.
import FerryBase
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Internal: owns the listening socket and the wake pipe, runs the accept loop on the server
/// thread, and keeps the record the test reads. Separate from ``ScriptedServer`` so the thread
/// does not keep the public object alive (its `deinit` shuts down).
final class ScriptedServerCore: Sendable {
    /// What the test can read back; guarded by `record`.
    struct Record {
        var received: [[UInt8]] = []
        var heads: [[MessageHead]] = []
        var mismatches: [String] = []
        var finished = 0
    }

    /// The most bytes kept per connection in ``ScriptedServer/receivedBytes(connection:)``.
    static let receivedLimit = 4 * 1024 * 1024

    let sockets: ServerSockets
    var listener: Int32 { sockets.listener }
    var wakeRead: Int32 { sockets.wakeRead }
    let scripts: [ConnectionScript]
    let extraConnections: ScriptedServer.ExtraConnections
    let ioTimeout: Duration
    let record = Locked(Record())
    private let threadDone = DispatchSemaphore(value: 0)
    /// Set with `threadDone`: what async shutdown waits for without blocking a thread.
    private let threadFinished = AsyncEvent()

    init(
        sockets: ServerSockets, scripts: [ConnectionScript],
        extraConnections: ScriptedServer.ExtraConnections, ioTimeout: Duration
    ) {
        self.sockets = sockets
        self.scripts = scripts
        self.extraConnections = extraConnections
        self.ioTimeout = ioTimeout
    }

    /// The accept loop; returns when the wake pipe fires.
    func run() {
        defer {
            threadDone.signal()
            threadFinished.set()
        }
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
                recordMismatch("accept: \(error)")
                // Do not spin on a persistent failure such as EMFILE.
                guard POSIXSocket.sleep(.milliseconds(50), wake: wakeRead) else { return }
                continue
            }
            let index = record.withLock { record in
                record.received.append([])
                record.heads.append([])
                return record.received.count - 1
            }
            var connection = ScriptConnection(core: self, fd: fd, index: index)
            connection.run(script(for: index))
            record.withLock { $0.finished += 1 }
        }
    }

    /// The script for connection `index`, or an empty one (close at once) for extra connections.
    private func script(for index: Int) -> ConnectionScript {
        if index < scripts.count { return scripts[index] }
        switch extraConnections {
        case .close: return ConnectionScript([])
        case .repeatLastScript: return scripts.last ?? ConnectionScript([])
        }
    }

    /// Wakes every wait, joins the thread (at most 5 s) and closes the sockets. Idempotent.
    /// Blocks the calling thread: async code uses ``shutdownGracefully()``.
    func shutdown() {
        guard sockets.beginShutdown() else { return }
        // If the thread did not finish (it always should), leak the descriptors rather than
        // close ones it may still use.
        guard threadDone.wait(timeout: .now() + 5) == .success else { return }
        sockets.closeAll()
    }

    /// ``shutdown()`` that suspends instead of blocking while the thread ends. Idempotent.
    func shutdownGracefully() async {
        guard sockets.beginShutdown() else { return }
        guard await threadFinished.wait(timeout: .seconds(5)) else { return }
        sockets.closeAll()
    }

    /// Appends bytes read from connection `index`, up to ``receivedLimit``.
    func recordReceived(_ bytes: ArraySlice<UInt8>, connection index: Int) {
        record.withLock { record in
            let room = Self.receivedLimit - record.received[index].count
            if room > 0 { record.received[index].append(contentsOf: bytes.prefix(room)) }
        }
    }

    /// Records a request head read on connection `index`.
    func recordHead(_ head: MessageHead, connection index: Int) {
        record.withLock { $0.heads[index].append(head) }
    }

    /// Records an unmet expectation or an I/O failure.
    func recordMismatch(_ text: String) {
        record.withLock { $0.mismatches.append(text) }
    }
}
