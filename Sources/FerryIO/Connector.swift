#if canImport(Glibc)
import Glibc
#endif

/// Opens one TCP connection: resolves the host, then races addresses with Happy Eyeballs
/// (RFC 8305) under an overall timeout, on one ``EventLoop``.
///
/// The decisions come from ``HappyEyeballsStateMachine``; this class only runs its actions
/// with ``Socket``s, loop registrations and timers. Single use, loop thread only. The
/// completion runs exactly once, on the loop: with the winner, or with a ``ConnectError``
/// (also after ``cancel()``). The connector keeps itself alive until then (its handlers and
/// timers hold it), so the caller need not store it unless it wants to cancel.
package final class Connector {
    /// A connected socket with what it took to get there.
    package struct Connected {
        /// The connected, non-blocking socket (no longer registered on the loop).
        package let socket: Socket
        /// The address that won the race.
        package let address: SocketAddress
        /// When the connect began (before DNS).
        package let started: Deadline
        /// When the addresses were known (DNS done; equal to ``started`` without DNS).
        package let resolved: Deadline
        /// When the winning connect completed.
        package let connected: Deadline
    }

    /// Why no connection was made.
    package enum ConnectError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The host name could not be resolved.
        case dns(DNSError)
        /// The resolver answered with no usable address.
        case noAddresses
        /// Every address failed; the error of the last one to fail.
        case allAttemptsFailed(SystemError)
        /// The overall timeout passed first.
        case timedOut
        /// ``Connector/cancel()`` was called.
        case cancelled

        /// A one-line explanation.
        package var description: String {
            switch self {
            case .dns(let error): "\(error)"
            case .noAddresses: "no addresses to connect to"
            case .allAttemptsFailed(let error): "all connection attempts failed; last: \(error)"
            case .timedOut: "connect timed out"
            case .cancelled: "connect cancelled"
            }
        }
    }

    /// Receives the outcome, on the loop's thread.
    package typealias Completion = (Result<Connected, ConnectError>) -> Void

    private enum Phase {
        case idle, resolving, connecting, done
    }

    private final class AttemptHandler: IOHandler {
        let connector: Connector
        let index: Int
        init(connector: Connector, index: Int) {
            self.connector = connector
            self.index = index
        }
        func readable() {}
        func writable() { connector.attemptReady(index) }
        func hangup() { connector.attemptReady(index) }
    }

    /// The loop everything runs on.
    package let loop: EventLoop
    private let resolver: Resolver?
    private let attemptDelay: Duration
    private var phase = Phase.idle
    private var machine = HappyEyeballsStateMachine(addresses: [])
    private var sockets: [Int: Socket] = [:]
    private var attemptTimer: TimerID?
    private var timeoutTimer: TimerID?
    private var completion: Completion?
    /// The name lookup under way, cancelled if the connector gives up first.
    private var lookup: ResolverLookup?
    private var started = Deadline.now()
    private var resolved = Deadline.now()

    /// Creates a connector on `loop`.
    /// - Parameters:
    ///   - resolver: Needed only for ``connect(host:port:timeout:_:)``.
    ///   - attemptDelay: RFC 8305 §5's Connection Attempt Delay.
    package init(loop: EventLoop, resolver: Resolver?, attemptDelay: Duration = .milliseconds(250)) {
        self.loop = loop
        self.resolver = resolver
        self.attemptDelay = attemptDelay
    }

    /// Resolves `host` and connects to it within `timeout` (DNS included). Loop thread only.
    package func connect(host: String, port: UInt16, timeout: Duration, _ completion: @escaping Completion) {
        begin(timeout: timeout, completion)
        guard let resolver else {
            preconditionFailure("Connector.connect(host:) needs a Resolver")
        }
        phase = .resolving
        lookup = resolver.resolve(host: host, port: port, on: loop) { [self] result in
            guard case .resolving = phase else { return }  // timed out or cancelled meanwhile
            lookup = nil
            resolved = .now()
            switch result {
            case .success(let addresses): race(addresses)
            case .failure(let error): finish(.failure(.dns(error)))
            }
        }
    }

    /// Connects to already resolved `addresses` within `timeout`. Loop thread only.
    package func connect(to addresses: [SocketAddress], timeout: Duration, _ completion: @escaping Completion) {
        begin(timeout: timeout, completion)
        race(addresses)
    }

    /// Gives up: closes every pending socket and completes with ``ConnectError/cancelled``.
    /// Does nothing once the connector has completed. Loop thread only.
    package func cancel() {
        loop.preconditionInEventLoop()
        switch phase {
        case .idle, .resolving:
            finish(.failure(.cancelled))
        case .connecting:
            run(machine.cancel())
        case .done:
            return
        }
    }

    // MARK: - Running the state machine

    private func begin(timeout: Duration, _ completion: @escaping Completion) {
        loop.preconditionInEventLoop()
        guard case .idle = phase else { preconditionFailure("a Connector connects once") }
        self.completion = completion
        started = .now()
        resolved = started
        timeoutTimer = loop.scheduleTimer(at: started + timeout) { [self] in
            timeoutTimer = nil
            switch phase {
            case .idle, .resolving: finish(.failure(.timedOut))
            case .connecting: run(machine.timedOut())
            case .done: return
            }
        }
    }

    private func race(_ addresses: [SocketAddress]) {
        phase = .connecting
        machine = HappyEyeballsStateMachine(addresses: addresses, attemptDelay: attemptDelay)
        run(machine.start(now: .now()))
    }

    private func run(_ action: HappyEyeballsStateMachine.Action) {
        switch action {
        case .none:
            return
        case .startAttempt(let index, let address, let nextAttemptAt):
            rescheduleAttemptTimer(nextAttemptAt)
            startAttempt(index, address)
        case .succeed(let index, let cancel):
            closeAttempts(cancel)
            guard let socket = sockets.removeValue(forKey: index) else { return }
            loop.deregister(fd: socket.fd)
            let connected = Connected(
                socket: socket, address: machine.addresses[index],
                started: started, resolved: resolved, connected: .now()
            )
            finish(.success(connected))
        case .fail(let lastError):
            finish(.failure(.allAttemptsFailed(lastError)))
        case .failNoAddresses:
            finish(.failure(.noAddresses))
        case .failTimedOut(let cancel):
            closeAttempts(cancel)
            finish(.failure(.timedOut))
        case .cancelled(let cancel):
            closeAttempts(cancel)
            finish(.failure(.cancelled))
        }
    }

    private func startAttempt(_ index: Int, _ address: SocketAddress) {
        let socket: Socket
        do {
            socket = try Socket.connect(to: address)
            try loop.register(fd: socket.fd, interest: .write, handler: AttemptHandler(connector: self, index: index))
        } catch {
            // Fails at once (no route for this family, out of descriptors): next address now.
            run(machine.attemptFailed(index: index, error: error, now: .now()))
            return
        }
        sockets[index] = socket
    }

    private func attemptReady(_ index: Int) {
        guard let socket = sockets[index] else { return }
        do {
            try socket.finishConnect()
            run(machine.attemptSucceeded(index: index))
        } catch {
            loop.deregister(fd: socket.fd, closing: true)
            socket.close()
            sockets[index] = nil
            run(machine.attemptFailed(index: index, error: error, now: .now()))
        }
    }

    private func rescheduleAttemptTimer(_ deadline: Deadline?) {
        if let attemptTimer { loop.cancelTimer(attemptTimer) }
        attemptTimer = deadline.map { deadline in
            loop.scheduleTimer(at: deadline) { [self] in
                attemptTimer = nil
                run(machine.attemptDelayElapsed(now: .now()))
            }
        }
    }

    private func closeAttempts(_ indices: [Int]) {
        for index in indices {
            guard let socket = sockets.removeValue(forKey: index) else { continue }
            loop.deregister(fd: socket.fd, closing: true)
            socket.close()
        }
    }

    /// Completes once: stops timers, closes anything still pending, breaks the handler and
    /// timer references so the connector can be freed.
    private func finish(_ result: Result<Connected, ConnectError>) {
        guard let completion else { return }
        self.completion = nil
        phase = .done
        // A lookup still queued is not made (one running still answers, and is ignored).
        lookup?.cancel()
        lookup = nil
        if let attemptTimer { loop.cancelTimer(attemptTimer) }
        if let timeoutTimer { loop.cancelTimer(timeoutTimer) }
        attemptTimer = nil
        timeoutTimer = nil
        closeAttempts(Array(sockets.keys))
        completion(result)
    }
}
