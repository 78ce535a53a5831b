import FerryIO
import FerryTLS

/// Decides which connection serves which request, for all hosts of one event loop.
///
/// Pure: the owning `ConnectionPool` feeds it events and performs the returned actions
/// (connecting, running exchanges, closing, timers). Idle connections are reused last in,
/// first out (the warmest socket, as urllib3 does); waiters are served highest priority first
/// (URLSessionTask's `priority`), first come, first served among equals. A retry after a reused
/// connection died takes only a connection opened for it: new connections go to retries first,
/// and a retry first in line when a connection is released gets one opened.
package struct ConnectionPoolStateMachine {
    /// Identifies a connection within one pool.
    package typealias ConnectionID = Int
    /// Identifies a waiting request within one pool.
    package typealias RequestID = Int

    /// What the owner must do.
    package enum Action: Equatable {
        /// Open a new connection for `key`.
        case createConnection(ConnectionID, PoolKey)
        /// Run the request on the connection (an idle one being reused, or a fresh one).
        case execute(RequestID, on: ConnectionID)
        /// Fail the request without running it.
        case failRequest(RequestID, EngineError)
        /// Close the connection and forget it.
        case closeConnection(ConnectionID)
        /// Arm the idle timer of a connection that just became idle.
        case scheduleIdleTimeout(ConnectionID, at: Deadline)
    }

    private struct IdleConnection {
        var id: ConnectionID
        var since: Deadline
    }

    private struct Waiter {
        var id: RequestID
        var priority: Float
        /// A retry after a reused connection died: it waits for a new connection, never for
        /// one another exchange releases (which may be as stale as the one that died).
        var fresh: Bool
    }

    private struct HostState {
        // Connections parked between exchanges; the last is the most recently used.
        var idle: [IdleConnection] = []
        // Connections running an exchange.
        var busy: Set<ConnectionID> = []
        // Connections still being opened.
        var connecting: Set<ConnectionID> = []
        // Requests waiting for a connection, oldest first.
        var waiters: [Waiter] = []

        var connectionCount: Int { idle.count + busy.count + connecting.count }
        var isEmpty: Bool { connectionCount == 0 && waiters.isEmpty }

        /// A waiter is not yet covered by a connection being opened, and the limit allows one.
        /// Checking "more waiters than openings" (not merely "a waiter") keeps two events that
        /// each notice the same waiter from opening two connections for it.
        func needsConnection(limit: Int) -> Bool {
            waiters.count > connecting.count && connectionCount < limit
        }

        /// The waiter a connection goes to: the highest priority, the oldest among equals; with
        /// `retriesFirst` (a new connection), a ``Waiter/fresh`` one before any other; for a
        /// `reused` connection, never a fresh one (nil when no other waits). A linear scan:
        /// waiters are few, and this runs once per hand-over.
        func nextWaiter(reused: Bool = false, retriesFirst: Bool = false) -> Int? {
            var best: Int?
            for index in waiters.indices where !(reused && waiters[index].fresh) {
                guard let chosen = best else {
                    best = index
                    continue
                }
                if retriesFirst, waiters[index].fresh != waiters[chosen].fresh {
                    if waiters[index].fresh { best = index }
                } else if waiters[index].priority > waiters[chosen].priority {
                    best = index
                }
            }
            return best
        }

        /// Removes and returns the waiter ``nextWaiter(reused:retriesFirst:)`` names.
        mutating func takeNextWaiter(reused: Bool = false, retriesFirst: Bool = false) -> RequestID? {
            nextWaiter(reused: reused, retriesFirst: retriesFirst).map { waiters.remove(at: $0).id }
        }

        /// Whether a retry waits that no connection being opened will serve (openings go to
        /// retries first).
        var hasUncoveredRetry: Bool {
            waiters.lazy.filter(\.fresh).count > connecting.count
        }
    }

    private enum State {
        // Serving requests.
        case running
        // Shut down: no new work; busy connections close when their exchange ends.
        case shutDown
    }

    private var state: State = .running
    private var hosts: [PoolKey: HostState] = [:]
    private var keyOfConnection: [ConnectionID: PoolKey] = [:]
    private var nextConnectionID: ConnectionID = 0
    private let maxConnectionsPerHost: Int
    private let idleTimeout: Duration

    /// Creates a pool machine.
    /// - Parameters:
    ///   - maxConnectionsPerHost: Most connections per key (at least 1).
    ///   - idleTimeout: How long a connection may stay idle before it is closed.
    package init(maxConnectionsPerHost: Int, idleTimeout: Duration) {
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.idleTimeout = idleTimeout
    }

    // MARK: - Events

    /// A request needs a connection for `key`.
    /// - Parameters:
    ///   - request: The waiting request.
    ///   - key: Which connections may serve it.
    ///   - fresh: Skip idle connections: a retry after a reused connection died. Parked
    ///     connections of the host are then suspect too, so the oldest makes room if needed.
    ///   - priority: From 0 to 1: while requests wait, a connection goes to the highest first.
    package mutating func leaseRequested(_ request: RequestID, key: PoolKey, fresh: Bool = false, priority: Float = 0.5) -> [Action] {
        switch state {
        case .shutDown:
            return [.failRequest(request, EngineError(.cancelled))]
        case .running:
            var host = takeHost(key) ?? HostState()
            defer { store(host, for: key) }
            var actions: [Action] = []
            if !fresh, let reused = host.idle.popLast() {
                host.busy.insert(reused.id)
                return [.execute(request, on: reused.id)]
            }
            if fresh, host.connectionCount >= maxConnectionsPerHost, !host.idle.isEmpty {
                let oldest = host.idle.removeFirst()
                keyOfConnection[oldest.id] = nil
                actions.append(.closeConnection(oldest.id))
            }
            host.waiters.append(Waiter(id: request, priority: priority, fresh: fresh))
            if host.needsConnection(limit: maxConnectionsPerHost) {
                actions.append(createConnection(for: key, in: &host))
            }
            return actions
        }
    }

    /// The request gave up (cancelled or timed out) before it got a connection.
    /// - Returns: `true` when the request was still waiting and is now removed.
    package mutating func leaseCancelled(_ request: RequestID, key: PoolKey) -> Bool {
        guard var host = hosts[key], let index = host.waiters.firstIndex(where: { $0.id == request }) else { return false }
        host.waiters.remove(at: index)
        hosts[key] = host
        return true
    }

    /// A connection finished opening.
    package mutating func connectionEstablished(_ connection: ConnectionID, now: Deadline) -> [Action] {
        guard let key = keyOfConnection[connection], var host = takeHost(key) else { return [.closeConnection(connection)] }
        defer { store(host, for: key) }
        host.connecting.remove(connection)
        switch state {
        case .shutDown:
            keyOfConnection[connection] = nil
            return [.closeConnection(connection)]
        case .running:
            if let request = host.takeNextWaiter(retriesFirst: true) {
                host.busy.insert(connection)
                return [.execute(request, on: connection)]
            }
            host.idle.append(IdleConnection(id: connection, since: now))
            return [.scheduleIdleTimeout(connection, at: now + idleTimeout)]
        }
    }

    /// Opening a connection failed; the waiter it would have gone to (the next one in order)
    /// fails with it.
    package mutating func connectionFailed(_ connection: ConnectionID, error: EngineError) -> [Action] {
        guard let key = keyOfConnection.removeValue(forKey: connection), var host = takeHost(key) else { return [] }
        defer { store(host, for: key) }
        host.connecting.remove(connection)
        guard let waiter = host.takeNextWaiter(retriesFirst: true) else { return [] }
        var actions: [Action] = [.failRequest(waiter, error)]
        // Later waiters get their own attempt, or they would wait for a connection nobody opens.
        if host.needsConnection(limit: maxConnectionsPerHost) {
            actions.append(createConnection(for: key, in: &host))
        }
        return actions
    }

    /// An exchange ended on `connection`; `reusable` says whether the connection may serve another.
    package mutating func exchangeFinished(on connection: ConnectionID, reusable: Bool, now: Deadline) -> [Action] {
        guard let key = keyOfConnection[connection], var host = takeHost(key) else { return [.closeConnection(connection)] }
        defer { store(host, for: key) }
        host.busy.remove(connection)
        switch state {
        case .shutDown:
            keyOfConnection[connection] = nil
            return [.closeConnection(connection)]
        case .running:
            if reusable {
                var actions: [Action] = []
                // A retry first in line that no opening covers gets a new connection (this one
                // is as suspect as the one that died); at the limit the oldest idle connection,
                // else this one, makes room.
                if let first = host.nextWaiter(), host.waiters[first].fresh, host.hasUncoveredRetry,
                   host.connectionCount + 1 >= maxConnectionsPerHost {
                    guard !host.idle.isEmpty else {
                        keyOfConnection[connection] = nil
                        return [.closeConnection(connection), createConnection(for: key, in: &host)]
                    }
                    let oldest = host.idle.removeFirst()
                    keyOfConnection[oldest.id] = nil
                    actions += [.closeConnection(oldest.id), createConnection(for: key, in: &host)]
                }
                if let request = host.takeNextWaiter(reused: true) {
                    host.busy.insert(connection)
                    actions.append(.execute(request, on: connection))
                } else {
                    host.idle.append(IdleConnection(id: connection, since: now))
                    actions.append(.scheduleIdleTimeout(connection, at: now + idleTimeout))
                }
                if host.needsConnection(limit: maxConnectionsPerHost) { actions.append(createConnection(for: key, in: &host)) }
                return actions
            }
            keyOfConnection[connection] = nil
            var actions: [Action] = [.closeConnection(connection)]
            if host.needsConnection(limit: maxConnectionsPerHost) {
                actions.append(createConnection(for: key, in: &host))
            }
            return actions
        }
    }

    /// A connection closed on its own: the peer closed an idle connection, or a reused one
    /// turned out dead when checked. The owner has already closed the socket.
    package mutating func connectionClosed(_ connection: ConnectionID) -> [Action] {
        guard let key = keyOfConnection.removeValue(forKey: connection), var host = takeHost(key) else { return [] }
        defer { store(host, for: key) }
        host.idle.removeAll { $0.id == connection }
        host.busy.remove(connection)
        host.connecting.remove(connection)
        switch state {
        case .shutDown:
            return []
        case .running:
            if host.needsConnection(limit: maxConnectionsPerHost) {
                return [createConnection(for: key, in: &host)]
            }
            return []
        }
    }

    /// The idle timer of `connection` fired.
    package mutating func idleTimeoutFired(_ connection: ConnectionID, now: Deadline) -> [Action] {
        guard let key = keyOfConnection[connection], var host = hosts[key],
              let index = host.idle.firstIndex(where: { $0.id == connection }) else { return [] }
        // The connection may have been reused and parked again since the timer was armed.
        guard host.idle[index].since + idleTimeout <= now else { return [] }
        host.idle.remove(at: index)
        keyOfConnection[connection] = nil
        store(host, for: key)
        return [.closeConnection(connection)]
    }

    /// Stop: idle connections close, waiters fail as cancelled, busy ones close when done.
    package mutating func shutdown() -> [Action] {
        switch state {
        case .shutDown:
            return []
        case .running:
            state = .shutDown
            var actions: [Action] = []
            for (key, var host) in hosts {
                for idle in host.idle {
                    keyOfConnection[idle.id] = nil
                    actions.append(.closeConnection(idle.id))
                }
                host.idle.removeAll()
                for waiter in host.waiters { actions.append(.failRequest(waiter.id, EngineError(.cancelled))) }
                host.waiters.removeAll()
                store(host, for: key)
            }
            return actions
        }
    }

    /// Closes every parked connection, of every host (URLSession's `flush`/`reset`): the next
    /// request opens a new one. Busy and opening connections are left to their exchanges.
    package mutating func closeIdleConnections() -> [Action] {
        var actions: [Action] = []
        for (key, var host) in hosts where !host.idle.isEmpty {
            for idle in host.idle {
                keyOfConnection[idle.id] = nil
                actions.append(.closeConnection(idle.id))
            }
            host.idle.removeAll()
            store(host, for: key)
        }
        return actions
    }

    /// Connections currently open or opening for `key` (for tests and diagnostics).
    package func connectionCount(for key: PoolKey) -> Int { hosts[key]?.connectionCount ?? 0 }

    /// Idle connections for `key`.
    package func idleCount(for key: PoolKey) -> Int { hosts[key]?.idle.count ?? 0 }

    // MARK: - Private

    private mutating func createConnection(for key: PoolKey, in host: inout HostState) -> Action {
        let id = nextConnectionID
        nextConnectionID += 1
        host.connecting.insert(id)
        keyOfConnection[id] = key
        return .createConnection(id, key)
    }

    /// Moves `key`'s state out of `hosts`, so that changing it changes its only copy: a copy
    /// read from the dictionary shares its arrays and sets with it, and the first change to
    /// each copied them (two sets and an array per request). ``store(_:for:)`` puts it back.
    private mutating func takeHost(_ key: PoolKey) -> HostState? {
        hosts.removeValue(forKey: key)
    }

    private mutating func store(_ host: HostState, for key: PoolKey) {
        hosts[key] = host.isEmpty ? nil : host
    }
}
