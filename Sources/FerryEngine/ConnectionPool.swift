#if canImport(Glibc)
import Glibc
#endif
import FerryIO
import FerryWire

/// The connections of one event loop: runs the actions of its ``ConnectionPoolStateMachine``
/// (connect, hand out, park, close) and keeps the objects the machine only knows by number.
final class ConnectionPool {
    let loop: EventLoop
    private let resolver: Resolver
    private var machine: ConnectionPoolStateMachine
    private var connections: [Int: HTTP1Connection] = [:]
    private var connectors: [Int: Connector] = [:]
    private var waiting: [Int: Exchange] = [:]
    private var idleTimers: [Int: TimerID] = [:]
    private var nextRequestID = 0

    init(loop: EventLoop, resolver: Resolver, maxConnectionsPerHost: Int, idleTimeout: Duration) {
        self.loop = loop
        self.resolver = resolver
        self.machine = ConnectionPoolStateMachine(maxConnectionsPerHost: maxConnectionsPerHost, idleTimeout: idleTimeout)
    }

    // MARK: - From exchanges

    /// A new id for an exchange about to wait for a connection.
    func reserveRequestID() -> Int {
        defer { nextRequestID += 1 }
        return nextRequestID
    }

    /// Queues `exchange` under `id` for a connection (a parked one may be handed over at once).
    func lease(_ id: Int, for exchange: Exchange, fresh: Bool) {
        waiting[id] = exchange
        run(machine.leaseRequested(id, key: exchange.request.key, fresh: fresh))
    }

    /// The exchange gave up while waiting.
    func cancelLease(_ id: Int, key: PoolKey) {
        if machine.leaseCancelled(id, key: key) { waiting[id] = nil }
    }

    // MARK: - From connections

    /// An exchange ended on `connection`.
    func exchangeFinished(on connection: Int, reusable: Bool) {
        run(machine.exchangeFinished(on: connection, reusable: reusable, now: .now()))
    }

    /// A connection closed by itself (peer closed it while idle, or bytes arrived unasked).
    func connectionClosed(_ connection: Int) {
        connections[connection] = nil
        cancelIdleTimer(connection)
        run(machine.connectionClosed(connection))
    }

    /// Closes everything: waiters and running exchanges fail as cancelled.
    func shutdown() {
        run(machine.shutdown())
        for connector in connectors.values { connector.cancel() }
        connectors.removeAll()
        // Running exchanges end as cancelled; their connections close with them.
        for connection in connections.values { connection.abort(EngineError(.cancelled)) }
    }

    // MARK: - Actions

    private func run(_ actions: [ConnectionPoolStateMachine.Action]) {
        for action in actions { run(action) }
    }

    private func run(_ action: ConnectionPoolStateMachine.Action) {
        switch action {
        case .createConnection(let id, let key):
            openConnection(id, key: key)
        case .execute(let requestID, let connectionID):
            guard let exchange = waiting.removeValue(forKey: requestID) else {
                // The exchange went away meanwhile: give the connection back.
                return run(machine.exchangeFinished(on: connectionID, reusable: true, now: .now()))
            }
            guard let connection = connections[connectionID] else {
                return exchange.leaseFailed(EngineError(.internalInconsistency("pool handed out an unknown connection")))
            }
            cancelIdleTimer(connectionID)
            if let timings = freshTimings.removeValue(forKey: connectionID) {
                exchange.connected(resolved: timings.resolved, connected: timings.connected)
            } else if !connection.isReusable {
                // Closed by the peer while parked: drop it and queue the exchange again.
                connection.close()
                connectionClosed(connectionID)
                waiting[requestID] = exchange
                return run(machine.leaseRequested(requestID, key: exchange.request.key, fresh: false))
            }
            connection.execute(exchange)
        case .failRequest(let requestID, let error):
            waiting.removeValue(forKey: requestID)?.leaseFailed(error)
        case .closeConnection(let id):
            cancelIdleTimer(id)
            connectors.removeValue(forKey: id)?.cancel()
            connections.removeValue(forKey: id)?.close()
            freshTimings[id] = nil
        case .scheduleIdleTimeout(let id, let deadline):
            // Parked unused (its exchange gave up): the next one did not wait for this connect.
            freshTimings[id] = nil
            cancelIdleTimer(id)
            idleTimers[id] = loop.scheduleTimer(at: deadline) { [weak self] in
                guard let self else { return }
                self.idleTimers[id] = nil
                self.run(self.machine.idleTimeoutFired(id, now: .now()))
            }
        }
    }

    private func openConnection(_ id: Int, key: PoolKey) {
        let connector = Connector(loop: loop, resolver: resolver)
        connectors[id] = connector
        // A connection is opened only for a waiter (the machine's rule), so one is here.
        let timeout = waiting.values.first { $0.request.key == key }?.request.connectTimeout ?? .seconds(60)
        connector.connect(host: key.host, port: UInt16(clamping: key.port), timeout: timeout) { [weak self] result in
            guard let self, self.connectors.removeValue(forKey: id) != nil else { return }
            switch result {
            case .success(let connected):
                let connection: HTTP1Connection
                do throws(SystemError) {
                    connection = try HTTP1Connection(
                        id: id, loop: self.loop, socket: connected.socket, remote: connected.address,
                        pool: self, parserLimits: .default)
                } catch {
                    connected.socket.close()
                    return self.run(self.machine.connectionFailed(id, error: EngineError(.connectFailed(host: key.host, port: key.port, error))))
                }
                self.connections[id] = connection
                self.freshTimings[id] = (connected.resolved, connected.connected)
                self.run(self.machine.connectionEstablished(id, now: .now()))
            case .failure(let error):
                self.run(self.machine.connectionFailed(id, error: Self.engineError(error, key: key)))
            }
        }
    }

    /// DNS and connect times of a new connection, for the first exchange that runs on it.
    private var freshTimings: [Int: (resolved: Deadline?, connected: Deadline)] = [:]

    private static func engineError(_ error: Connector.ConnectError, key: PoolKey) -> EngineError {
        switch error {
        case .dns(let dns): return EngineError(.hostNotFound(dns))
        case .noAddresses: return EngineError(.hostNotFound(DNSError(host: key.host, code: EAI_NONAME)))
        case .allAttemptsFailed(let system): return EngineError(.connectFailed(host: key.host, port: key.port, system))
        case .timedOut: return EngineError(.connectTimedOut(host: key.host, port: key.port))
        case .cancelled: return EngineError(.cancelled)
        }
    }

    private func cancelIdleTimer(_ id: Int) {
        if let timer = idleTimers.removeValue(forKey: id) { loop.cancelTimer(timer) }
    }
}
