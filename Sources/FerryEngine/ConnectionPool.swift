#if canImport(Glibc)
import Glibc
#endif
import FerryIO
import FerryTLS
import FerryWire

/// The connections of one event loop: runs the actions of its ``ConnectionPoolStateMachine``
/// (connect, hand out, park, close) and keeps the objects the machine only knows by number.
final class ConnectionPool {
    let loop: EventLoop
    private let resolver: Resolver
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var machine: ConnectionPoolStateMachine
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var connections: [Int: HTTP1Connection] = [:]
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var connectors: [Int: Connector] = [:]
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var handshakes: [Int: TLSHandshake] = [:]
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var tunnels: [Int: ProxyTunnel] = [:]
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var waiting: [Int: Exchange] = [:]
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var idleTimers: [Int: TimerID] = [:]
    private var nextRequestID = 0
    private let connect: ConnectSettings

    init(loop: EventLoop, resolver: Resolver, maxConnectionsPerHost: Int, idleTimeout: Duration, connect: ConnectSettings) {
        self.loop = loop
        self.resolver = resolver
        self.connect = connect
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
        run(machine.leaseRequested(id, key: exchange.request.key, fresh: fresh, priority: exchange.request.priority))
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

    /// Closes every parked keep-alive connection (running exchanges keep theirs).
    func closeIdleConnections() {
        run(machine.closeIdleConnections())
    }

    /// Closes everything: waiters and running exchanges fail as cancelled.
    func shutdown() {
        run(machine.shutdown())
        for connector in connectors.values { connector.cancel() }
        connectors.removeAll()
        for handshake in handshakes.values { handshake.cancel() }
        handshakes.removeAll()
        for tunnel in tunnels.values { tunnel.cancel() }
        tunnels.removeAll()
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
                exchange.connected(resolved: timings.resolved, connected: timings.connected, secured: timings.secured)
            } else if !connection.isReusable {
                // Closed by the peer while parked: drop it and queue the exchange again.
                connection.close()
                connectionClosed(connectionID)
                waiting[requestID] = exchange
                return run(machine.leaseRequested(requestID, key: exchange.request.key, fresh: false,
                                                  priority: exchange.request.priority))
            }
            connection.execute(exchange)
        case .failRequest(let requestID, let error):
            waiting.removeValue(forKey: requestID)?.leaseFailed(error)
        case .closeConnection(let id):
            cancelIdleTimer(id)
            connectors.removeValue(forKey: id)?.cancel()
            handshakes.removeValue(forKey: id)?.cancel()
            tunnels.removeValue(forKey: id)?.cancel()
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
        let timeout = connect.timeout
        // A tunnel's TCP connection goes to its proxy; a forwarding proxy is the key's host.
        let (host, port) = key.connectionEndpoint
        // Host names are lower-cased already; most sessions resolve nothing themselves.
        let target = connect.resolvedAddresses.isEmpty ? host : connect.resolvedAddresses[host] ?? host
        // The connect timeout covers TCP, CONNECT, the TLS handshake and the trust evaluation,
        // as curl's.
        let deadline = Deadline.now() + timeout
        connector.connect(host: target, port: UInt16(clamping: port), timeout: timeout) { [weak self] result in
            guard let self, self.connectors.removeValue(forKey: id) != nil else { return }
            switch result {
            case .success(let connected):
                let timings = FreshTimings(resolved: connected.resolved, connected: connected.connected)
                guard case .tunnel(let proxy) = key.route else {
                    return self.connected(id, key: key, socket: connected.socket, remote: connected.address,
                                          deadline: deadline, timings: timings)
                }
                self.openTunnel(id, key: key, through: proxy, connected: connected, deadline: deadline, timings: timings)
            case .failure(let error):
                self.run(self.machine.connectionFailed(id, error: Self.engineError(error, key: key)))
            }
        }
    }

    /// Asks the proxy for a tunnel to the key's origin on a fresh connection to the proxy.
    private func openTunnel(
        _ id: Int, key: PoolKey, through proxy: TunnelProxy, connected: Connector.Connected, deadline: Deadline,
        timings: FreshTimings
    ) {
        let tunnel = ProxyTunnel(loop: loop, socket: connected.socket, proxy: proxy, host: key.host, port: key.port,
                                 parserLimits: .default)
        tunnels[id] = tunnel
        tunnel.start(deadline: deadline) { [weak self] result in
            guard let self, self.tunnels.removeValue(forKey: id) != nil else {
                if case .success(let socket) = result { socket.close() }
                return
            }
            switch result {
            case .success(let socket):
                self.connected(id, key: key, socket: socket, remote: connected.address, deadline: deadline, timings: timings)
            case .failure(let error):
                self.run(self.machine.connectionFailed(id, error: error))
            }
        }
    }

    /// A socket reaches the key's origin (directly, through a tunnel, or a forwarding proxy):
    /// secure it for `https`, else it is ready.
    private func connected(
        _ id: Int, key: PoolKey, socket: Socket, remote: SocketAddress, deadline: Deadline, timings: FreshTimings
    ) {
        guard let context = key.tls else {
            return connectionReady(id, key: key, transport: Transport(socket: socket), remote: remote,
                                   timings: timings, facts: nil)
        }
        secure(id, key: key, socket: socket, remote: remote, context: context, deadline: deadline, timings: timings)
    }

    /// Runs the TLS handshake and the trust check on a fresh TCP connection.
    private func secure(
        _ id: Int, key: PoolKey, socket: Socket, remote: SocketAddress, context: TLSClientContext, deadline: Deadline,
        timings: FreshTimings
    ) {
        let tls: TLSConnection
        do throws(TLSError) {
            tls = try context.makeConnection(serverName: key.host, port: key.port)
        } catch {
            socket.close()
            return run(machine.connectionFailed(id, error: EngineError(.tlsHandshakeFailed(host: key.host, port: key.port, error))))
        }
        let handshake = TLSHandshake(
            loop: loop, socket: socket, tls: tls, host: key.host, port: key.port,
            trustStore: context.configuration.trustStore, check: connect.serverTrustCheck,
            identityProvider: connect.clientIdentityProvider)
        handshakes[id] = handshake
        handshake.start(deadline: deadline) { [weak self] result in
            guard let self, self.handshakes.removeValue(forKey: id) != nil else { return }
            switch result {
            case .success(let (transport, facts)):
                var timings = timings
                timings.secured = .now()
                self.connectionReady(id, key: key, transport: transport, remote: remote, timings: timings, facts: facts)
            case .failure(let error):
                self.run(self.machine.connectionFailed(id, error: error))
            }
        }
    }

    /// A connection is ready for HTTP: hand it to the machine.
    private func connectionReady(
        _ id: Int, key: PoolKey, transport: Transport, remote: SocketAddress, timings: FreshTimings, facts: TLSFacts?
    ) {
        let connection: HTTP1Connection
        do throws(SystemError) {
            connection = try HTTP1Connection(id: id, loop: loop, transport: transport, remote: remote, tlsFacts: facts, pool: self)
        } catch {
            transport.close()
            return run(machine.connectionFailed(id, error: EngineError(.connectFailed(host: key.host, port: key.port, error))))
        }
        connections[id] = connection
        freshTimings[id] = timings
        run(machine.connectionEstablished(id, now: .now()))
        connection.sendHandshakeRemainder()
    }

    /// When a new connection's steps finished, for the first exchange that runs on it.
    private struct FreshTimings {
        var resolved: Deadline?
        var connected: Deadline
        var secured: Deadline?
    }

    /// DNS, connect and TLS times of a new connection, for the first exchange that runs on it.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var freshTimings: [Int: FreshTimings] = [:]

    private static func engineError(_ error: Connector.ConnectError, key: PoolKey) -> EngineError {
        let (host, port) = key.connectionEndpoint
        if case .cancelled = error { return EngineError(.cancelled) }
        guard key.isProxied else {
            switch error {
            case .dns(let dns): return EngineError(.hostNotFound(dns))
            case .noAddresses: return EngineError(.hostNotFound(DNSError(host: host, code: EAI_NONAME)))
            case .allAttemptsFailed(let system): return EngineError(.connectFailed(host: host, port: port, system))
            case .timedOut, .cancelled: return EngineError(.connectTimedOut(host: host, port: port))
            }
        }
        let reason: ProxyFailure.Reason
        switch error {
        case .dns(let dns): reason = .hostNotFound(dns)
        case .noAddresses: reason = .hostNotFound(DNSError(host: host, code: EAI_NONAME))
        case .allAttemptsFailed(let system): reason = .connectFailed(system)
        case .timedOut, .cancelled: reason = .timedOut
        }
        return EngineError(.proxyFailed(ProxyFailure(proxyHost: host, proxyPort: port, reason)))
    }

    private func cancelIdleTimer(_ id: Int) {
        if let timer = idleTimers.removeValue(forKey: id) { loop.cancelTimer(timer) }
    }
}
