import FerryIO
import Logging

/// Runs one ``ReachabilityStateMachine`` over one ``NetlinkSocket`` on an ``EventLoop``.
///
/// Loop-confined: every method but `init` runs on `loop`'s thread. It reads every datagram
/// the socket has when the loop says it is readable, parses it with ``NetlinkParser`` (logging
/// what was skipped), feeds the machine and runs its actions: requests go out on the same
/// socket, the coalescing pause is a loop timer, names go to the ``Resolver``'s threads, and
/// statuses go to `publish`, which must not block (the manager hands them to its queue).
final class ReachabilityMonitor: IOHandler {
    /// The pause between the first change of a burst and its evaluation.
    static let coalescingDelay = Duration.milliseconds(50)
    /// The most datagrams read in one turn, so a flood cannot starve the loop's other work
    /// (the socket stays readable and the loop comes back).
    private static let maxDatagramsPerTurn = 64
    /// Large enough for any datagram the kernel sends rtnetlink listeners (dumps are cut at
    /// 32 KiB); a larger one is reported as lost and repaired by a fresh dump.
    private static let bufferSize = 64 * 1024
    private static let logger = Logger(label: "ferry.reachability")

    private let loop: EventLoop
    private let socket: NetlinkSocket
    private let resolver: @Sendable () -> Resolver?
    private let publish: @Sendable (NetworkReachabilityStatus) -> Void
    private let onMessagesLost: @Sendable () -> Void
    private var machine: ReachabilityStateMachine
    private let buffer: UnsafeMutableRawBufferPointer
    private var evaluationTimer: TimerID?
    /// The name lookup under way, cancelled when monitoring stops: the resolver's threads are
    /// shared, and a stopped monitor's lookup would hold up the lookups queued behind it.
    private var lookup: ResolverLookup?
    private var isStopped = false

    /// A monitor (not yet started) owning `socket`.
    init(
        loop: EventLoop, socket: NetlinkSocket, machine: ReachabilityStateMachine,
        resolver: @escaping @Sendable () -> Resolver?, onMessagesLost: @escaping @Sendable () -> Void,
        publish: @escaping @Sendable (NetworkReachabilityStatus) -> Void
    ) {
        self.onMessagesLost = onMessagesLost
        self.loop = loop
        self.socket = socket
        self.machine = machine
        self.resolver = resolver
        self.publish = publish
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 8)
    }

    deinit {
        socket.close()
        buffer.deallocate()
    }

    /// Registers the socket and sends the first dump request.
    func start() {
        loop.preconditionInEventLoop()
        do {
            try loop.register(fd: socket.fd, interest: .read, handler: self)
        } catch {
            fail("cannot watch the rtnetlink socket: \(error)")
            return
        }
        run(machine.start())
    }

    /// Stops for good: deregisters and closes the socket, drops the timer, cancels a lookup no
    /// worker has taken yet. Idempotent.
    func stop() {
        loop.preconditionInEventLoop()
        guard !isStopped else { return }
        isStopped = true
        if let evaluationTimer { loop.cancelTimer(evaluationTimer) }
        evaluationTimer = nil
        lookup?.cancel()
        lookup = nil
        loop.deregister(fd: socket.fd)
        socket.close()
    }

    // MARK: - IOHandler

    func readable() {
        for _ in 0..<Self.maxDatagramsPerTurn where !isStopped {
            let received: NetlinkSocket.Received
            do {
                received = try socket.receive(into: buffer)
            } catch {
                fail("reading the rtnetlink socket failed: \(error)")
                return
            }
            switch received {
            case .wouldBlock:
                return
            case .lost:
                Self.logger.notice("rtnetlink messages were lost (receive buffer overflow); dumping again")
                onMessagesLost()
                run(machine.messagesLost())
            case .foreign(let portID):
                Self.logger.debug("dropped a netlink datagram from port \(portID), not the kernel")
            case .datagram(let count):
                let output = NetlinkParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                for problem in output.problems {
                    Self.logger.warning("skipped a malformed rtnetlink message: \(problem)")
                }
                for message in output.messages where !isStopped {
                    run(machine.received(message))
                }
            }
        }
    }

    func writable() {}

    func hangup() {
        // A netlink socket has no peer to hang up; an error is pending. Reading reports it
        // (ENOBUFS included) and acts on it.
        readable()
    }

    // MARK: - Actions

    private func run(_ actions: [ReachabilityStateMachine.Action]) {
        for action in actions where !isStopped {
            switch action {
            case .send(let request, let sequence):
                do {
                    try socket.send(request.encoded(sequence: sequence))
                } catch {
                    fail("sending the \(request.name) failed: \(error)")
                }
            case .scheduleEvaluation:
                evaluationTimer = loop.scheduleTimer(at: .now() + Self.coalescingDelay) { [weak self] in
                    guard let self, !isStopped else { return }
                    evaluationTimer = nil
                    run(machine.evaluationDue())
                }
            case .report(let status):
                publish(status)
            case .resolve(let host):
                resolve(host)
            case .fail(let reason):
                fail(reason)
            }
        }
    }

    private func resolve(_ host: String) {
        guard let resolver = resolver() else {
            run(machine.resolved(.failed))
            return
        }
        lookup = resolver.resolve(host: host, port: 0, on: loop) { [weak self] result in
            guard let self, !isStopped else { return }
            lookup = nil
            switch result {
            case .success(let addresses):
                run(machine.resolved(.addresses(addresses.map(IPAddress.init))))
            case .failure(let error):
                Self.logger.debug("resolving \(host) failed: \(error)")
                run(machine.resolved(error.isNameNotFound ? .notFound : .failed))
            }
        }
    }

    /// Something that monitoring cannot recover from: log it, say "unknown", stop.
    private func fail(_ reason: String) {
        Self.logger.error("reachability monitoring stopped: \(reason)")
        publish(.unknown)
        stop()
    }
}
