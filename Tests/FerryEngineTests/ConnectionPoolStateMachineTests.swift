import FerryIO
import Testing

@testable import FerryEngine

@Suite struct ConnectionPoolStateMachineTests {
    let key = PoolKey(scheme: "http", host: "Example.com", port: 80)
    let other = PoolKey(scheme: "http", host: "other.test", port: 8080)
    let t0 = Deadline(uptimeNanoseconds: 1_000_000_000)

    func machine(max: Int = 2) -> ConnectionPoolStateMachine {
        ConnectionPoolStateMachine(maxConnectionsPerHost: max, idleTimeout: .seconds(60))
    }

    /// A pool at its limit of two connections (0 and 1), both busy with requests 1 and 2.
    func atTheLimit() -> ConnectionPoolStateMachine {
        var pool = machine(max: 2)
        _ = pool.leaseRequested(1, key: key)
        _ = pool.leaseRequested(2, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        _ = pool.connectionEstablished(1, now: t0)
        return pool
    }

    @Test func firstRequestOpensAConnectionAndRunsOnIt() {
        var pool = machine()
        #expect(pool.leaseRequested(1, key: key) == [.createConnection(0, key)])
        #expect(pool.connectionEstablished(0, now: t0) == [.execute(1, on: 0)])
        #expect(pool.connectionCount(for: key) == 1)
    }

    @Test func keyIsCaseInsensitiveForHosts() {
        #expect(PoolKey(scheme: "http", host: "EXAMPLE.com", port: 80) == key)
    }

    @Test func finishedReusableConnectionIsParkedAndReusedLastInFirstOut() {
        var pool = atTheLimit()
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.scheduleIdleTimeout(0, at: t0 + .seconds(60))])
        #expect(pool.exchangeFinished(on: 1, reusable: true, now: t0) == [.scheduleIdleTimeout(1, at: t0 + .seconds(60))])
        #expect(pool.idleCount(for: key) == 2)
        // The warmest connection (1, parked last) serves next.
        #expect(pool.leaseRequested(3, key: key) == [.execute(3, on: 1)])
    }

    @Test func perHostLimitQueuesWaitersFairly() {
        var pool = machine(max: 1)
        #expect(pool.leaseRequested(1, key: key) == [.createConnection(0, key)])
        #expect(pool.leaseRequested(2, key: key) == [])
        #expect(pool.leaseRequested(3, key: key) == [])
        #expect(pool.connectionEstablished(0, now: t0) == [.execute(1, on: 0)])
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.execute(2, on: 0)])
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.execute(3, on: 0)])
        #expect(pool.connectionCount(for: key) == 1)
    }

    @Test func waitersAreServedHighestPriorityFirstAndInOrderAmongEquals() {
        var pool = machine(max: 1)
        #expect(pool.leaseRequested(1, key: key) == [.createConnection(0, key)])
        _ = pool.leaseRequested(2, key: key, priority: 0.2)
        _ = pool.leaseRequested(3, key: key, priority: 0.9)
        _ = pool.leaseRequested(4, key: key, priority: 0.5)
        _ = pool.leaseRequested(5, key: key, priority: 0.9)
        #expect(pool.connectionEstablished(0, now: t0) == [.execute(3, on: 0)], "request 1 was not yet served: 3 outranks it")
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.execute(5, on: 0)])
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.execute(1, on: 0)])
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.execute(4, on: 0)])
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.execute(2, on: 0)])
    }

    @Test func aCancelledHighPriorityWaiterIsSkipped() {
        var pool = machine(max: 1)
        _ = pool.leaseRequested(1, key: key)
        _ = pool.leaseRequested(2, key: key, priority: 1)
        let removed = pool.leaseCancelled(2, key: key)
        #expect(removed)
        #expect(pool.connectionEstablished(0, now: t0) == [.execute(1, on: 0)])
    }

    @Test func aFailedConnectFailsTheWaiterItWouldHaveServed() {
        var pool = machine(max: 1)
        _ = pool.leaseRequested(1, key: key, priority: 0.1)
        _ = pool.leaseRequested(2, key: key, priority: 0.8)
        let error = EngineError(.cancelled)
        #expect(pool.connectionFailed(0, error: error) == [.failRequest(2, error), .createConnection(1, key)])
    }

    @Test func closingIdleConnectionsLeavesBusyOnesAndOpensNewOnesAfterwards() {
        var pool = machine(max: 2)
        _ = pool.leaseRequested(1, key: key)
        _ = pool.leaseRequested(2, key: other)
        _ = pool.leaseRequested(3, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        _ = pool.connectionEstablished(1, now: t0)
        _ = pool.connectionEstablished(2, now: t0)
        _ = pool.exchangeFinished(on: 0, reusable: true, now: t0)
        _ = pool.exchangeFinished(on: 1, reusable: true, now: t0)
        let closed = pool.closeIdleConnections()
        #expect(closed.count == 2 && closed.contains(.closeConnection(0)) && closed.contains(.closeConnection(1)),
                "connection 2 is busy and stays: \(closed)")
        #expect(pool.idleCount(for: key) == 0)
        #expect(pool.connectionCount(for: key) == 1)
        let again = pool.closeIdleConnections()
        #expect(again.isEmpty)
        #expect(pool.leaseRequested(4, key: other) == [.createConnection(3, other)])
    }

    @Test func limitsAreCountedPerKey() {
        var pool = machine(max: 1)
        #expect(pool.leaseRequested(1, key: key) == [.createConnection(0, key)])
        #expect(pool.leaseRequested(2, key: other) == [.createConnection(1, other)])
    }

    @Test func unreusableConnectionClosesAndOpensANewOneForTheNextWaiter() {
        var pool = machine(max: 1)
        _ = pool.leaseRequested(1, key: key)
        _ = pool.leaseRequested(2, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        #expect(pool.exchangeFinished(on: 0, reusable: false, now: t0) == [.closeConnection(0), .createConnection(1, key)])
        #expect(pool.connectionEstablished(1, now: t0) == [.execute(2, on: 1)])
    }

    @Test func failedConnectFailsTheOldestWaiterAndRetriesForTheRest() {
        var pool = machine(max: 1)
        let error = EngineError(.connectTimedOut(host: "example.com", port: 80))
        _ = pool.leaseRequested(1, key: key)
        _ = pool.leaseRequested(2, key: key)
        #expect(pool.connectionFailed(0, error: error) == [.failRequest(1, error), .createConnection(1, key)])
        #expect(pool.connectionFailed(1, error: error) == [.failRequest(2, error)])
        #expect(pool.connectionCount(for: key) == 0)
    }

    @Test func cancelledWaiterIsRemovedAndItsConnectionParksIdle() {
        var pool = machine()
        _ = pool.leaseRequested(1, key: key)
        let first = pool.leaseCancelled(1, key: key)
        let second = pool.leaseCancelled(1, key: key)
        #expect(first)
        #expect(!second)
        #expect(pool.connectionEstablished(0, now: t0) == [.scheduleIdleTimeout(0, at: t0 + .seconds(60))])
    }

    @Test func idleTimeoutClosesOnlyAConnectionIdleLongEnough() {
        var pool = machine()
        _ = pool.leaseRequested(1, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        _ = pool.exchangeFinished(on: 0, reusable: true, now: t0)
        // Reused and parked again later: the first timer must not close it.
        _ = pool.leaseRequested(2, key: key)
        _ = pool.exchangeFinished(on: 0, reusable: true, now: t0 + .seconds(30))
        #expect(pool.idleTimeoutFired(0, now: t0 + .seconds(60)) == [])
        #expect(pool.idleTimeoutFired(0, now: t0 + .seconds(90)) == [.closeConnection(0)])
        #expect(pool.connectionCount(for: key) == 0)
    }

    @Test func peerClosedIdleConnectionIsForgotten() {
        var pool = machine()
        _ = pool.leaseRequested(1, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        _ = pool.exchangeFinished(on: 0, reusable: true, now: t0)
        #expect(pool.connectionClosed(0) == [])
        #expect(pool.leaseRequested(2, key: key) == [.createConnection(1, key)])
    }

    @Test func freshLeaseSkipsIdleConnectionsAndMakesRoomAtTheLimit() {
        var pool = machine(max: 1)
        _ = pool.leaseRequested(1, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        _ = pool.exchangeFinished(on: 0, reusable: true, now: t0)
        #expect(pool.leaseRequested(2, key: key, fresh: true) == [.closeConnection(0), .createConnection(1, key)])
    }

    @Test func shutdownClosesIdleFailsWaitersAndClosesBusyWhenDone() {
        var pool = machine(max: 1)
        _ = pool.leaseRequested(1, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        _ = pool.leaseRequested(2, key: key)
        #expect(pool.shutdown() == [.failRequest(2, EngineError(.cancelled))])
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.closeConnection(0)])
        #expect(pool.leaseRequested(3, key: key) == [.failRequest(3, EngineError(.cancelled))])
        #expect(pool.shutdown() == [])
    }
}

extension ConnectionPoolStateMachineTests {
    /// A request retried on a fresh connection while its dead connection is still counted
    /// must get exactly one new connection, not one per event that notices it waiting.
    @Test func retryWhileTheDeadConnectionClosesOpensOneConnection() {
        var pool = machine(max: 6)
        _ = pool.leaseRequested(1, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        #expect(pool.leaseRequested(2, key: key, fresh: true) == [.createConnection(1, key)])
        #expect(pool.exchangeFinished(on: 0, reusable: false, now: t0) == [.closeConnection(0)])
        #expect(pool.connectionCount(for: key) == 1)
    }

    /// A waiter already covered by an opening connection does not get a second one when
    /// another connection closes.
    @Test func closedConnectionDoesNotOpenAnotherForACoveredWaiter() {
        var pool = machine(max: 6)
        _ = pool.leaseRequested(1, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        #expect(pool.leaseRequested(2, key: key) == [.createConnection(1, key)])
        #expect(pool.connectionClosed(0) == [])
        #expect(pool.connectionEstablished(1, now: t0) == [.execute(2, on: 1)])
    }
}

// MARK: - Waiter order, as a table

/// One row: requests arrive with these priorities while the only connection opens (request
/// ids are the indices), some give up; the connection then serves the rest in `served` order.
struct WaiterOrderCase: Sendable, CustomTestStringConvertible {
    var name: String
    var priorities: [Float]
    var cancelled: Set<Int> = []
    var served: [Int]

    var testDescription: String { name }
}

extension ConnectionPoolStateMachineTests {
    static let waiterOrder: [WaiterOrderCase] = [
        WaiterOrderCase(name: "equal priorities: first come, first served", priorities: [0.5, 0.5, 0.5, 0.5], served: [0, 1, 2, 3]),
        WaiterOrderCase(name: "rising priorities: the last first", priorities: [0.1, 0.4, 0.7, 1], served: [3, 2, 1, 0]),
        WaiterOrderCase(name: "falling priorities: arrival order", priorities: [1, 0.7, 0.4, 0], served: [0, 1, 2, 3]),
        WaiterOrderCase(name: "ties keep arrival order within each level", priorities: [0.2, 0.9, 0.2, 0.9, 0.5],
                        served: [1, 3, 4, 0, 2]),
        WaiterOrderCase(name: "a cancelled top waiter is skipped", priorities: [0.5, 1, 0.5], cancelled: [1], served: [0, 2]),
        WaiterOrderCase(name: "cancelled waiters of every level", priorities: [0, 1, 0.5, 1, 0], cancelled: [1, 4],
                        served: [3, 2, 0]),
    ]

    @Test(arguments: waiterOrder)
    func waitersAreServedInPriorityOrder(_ row: WaiterOrderCase) {
        var pool = machine(max: 1)
        var actions: [ConnectionPoolStateMachine.Action] = []
        for (id, priority) in row.priorities.enumerated() {
            actions += pool.leaseRequested(id, key: key, priority: priority)
        }
        #expect(actions == [.createConnection(0, key)], "one connection for all: \(actions)")
        for id in row.cancelled.sorted() {
            let removed = pool.leaseCancelled(id, key: key)
            #expect(removed)
        }
        var served = pool.connectionEstablished(0, now: t0)
        for _ in row.served.dropFirst() {
            served += pool.exchangeFinished(on: 0, reusable: true, now: t0)
        }
        #expect(served == row.served.map { .execute($0, on: 0) })
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.scheduleIdleTimeout(0, at: t0 + .seconds(60))],
                "nobody is left waiting")
    }

    /// A retry waits for a new connection: a connection another exchange releases may be as
    /// stale as the one that died (a server that closes each kept-alive connection once idle).
    /// At the limit, the released connection closes to make room for it.
    @Test func aRetryIsNeverHandedAReleasedConnection() {
        var pool = atTheLimit()
        #expect(pool.leaseRequested(3, key: key, fresh: true) == [])
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.closeConnection(0), .createConnection(2, key)])
        #expect(pool.connectionCount(for: key) == 2)
        #expect(pool.connectionEstablished(2, now: t0) == [.execute(3, on: 2)])
    }

    /// A released connection goes to the next waiter that may reuse one, whatever a retry's
    /// priority; below the limit it parks while the retry's own connection opens.
    @Test func aReleasedConnectionSkipsRetriesAndServesTheOthers() {
        var pool = machine(max: 3)
        _ = pool.leaseRequested(1, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        #expect(pool.leaseRequested(2, key: key, fresh: true, priority: 1) == [.createConnection(1, key)])
        #expect(pool.leaseRequested(3, key: key, priority: 0) == [.createConnection(2, key)])
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.execute(3, on: 0)])
        #expect(pool.connectionEstablished(1, now: t0) == [.execute(2, on: 1)])
        #expect(pool.connectionEstablished(2, now: t0) == [.scheduleIdleTimeout(2, at: t0 + .seconds(60))])
    }

    /// A retry first in line gets a new connection at the next release, ahead of a request that
    /// came after it; the release after that serves the request.
    @Test func aRetryFirstInLineIsNotOvertakenByALaterRequest() {
        var pool = atTheLimit()
        #expect(pool.leaseRequested(3, key: key, fresh: true) == [])
        #expect(pool.leaseRequested(4, key: key) == [])
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.closeConnection(0), .createConnection(2, key)])
        #expect(pool.exchangeFinished(on: 1, reusable: true, now: t0) == [.execute(4, on: 1)])
        #expect(pool.connectionEstablished(2, now: t0) == [.execute(3, on: 2)])
    }

    /// A connection being opened goes to a retry before a request of higher priority.
    @Test func aNewConnectionGoesToARetryFirst() {
        var pool = machine(max: 2)
        _ = pool.leaseRequested(1, key: key)
        _ = pool.connectionEstablished(0, now: t0)
        #expect(pool.leaseRequested(2, key: key, fresh: true, priority: 0) == [.createConnection(1, key)])
        #expect(pool.leaseRequested(3, key: key, priority: 1) == [])
        #expect(pool.connectionEstablished(1, now: t0) == [.execute(2, on: 1)])
        #expect(pool.exchangeFinished(on: 0, reusable: true, now: t0) == [.execute(3, on: 0)])
    }
}
