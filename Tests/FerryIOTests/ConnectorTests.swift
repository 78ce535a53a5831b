import Dispatch
import FerryBase
import Synchronization
import Testing

@testable import FerryIO

#if canImport(Glibc)
import Glibc
#endif

@Suite("Connector")
struct ConnectorTests {
    typealias Outcome = Result<(address: String, socket: Socket, timingsOrdered: Bool), Connector.ConnectError>

    /// Runs a connector on a fresh loop and waits for its completion.
    private func run(
        resolver: Resolver? = nil,
        attemptDelay: Duration = .milliseconds(250),
        _ start: @escaping @Sendable (Connector, @escaping Connector.Completion) -> Void
    ) async throws -> Outcome {
        try await withLoop { loop in
            let latch = Latch<LoopBound<Outcome>>()
            loop.execute {
                let connector = Connector(loop: loop, resolver: resolver, attemptDelay: attemptDelay)
                start(connector) { result in
                    #expect(loop.inEventLoop)
                    #expect(loop.registeredCount == 0, "the connector left registrations behind")
                    latch.fulfill(LoopBound(result.map { connected in
                        (connected.address.description, connected.socket,
                         connected.started <= connected.resolved && connected.resolved <= connected.connected)
                    }))
                }
            }
            return try #require(await latch.wait()).value
        }
    }

    @Test("connects to a listening 127.0.0.1 socket with ordered timings")
    func connectsToLoopback() async throws {
        let listener = try Socket.listen(on: loopbackV4)
        let target = try listener.localAddress
        let outcome = try await run { connector, done in
            connector.connect(to: [target], timeout: .seconds(10), done)
        }
        let connected = try outcome.get()
        #expect(connected.address == target.description)
        #expect(connected.timingsOrdered)
        #expect(try connected.socket.remoteAddress == target)
    }

    @Test("a refused address falls through to the next one, which wins")
    func fallsThroughRefused() async throws {
        let (holder, refusedPort) = try refusingLoopbackPort()
        defer { holder.close() }
        let listener = try Socket.listen(on: loopbackV4)
        let good = try listener.localAddress
        // ::1 first (refused, or unreachable without IPv6), then a refused v4, then the listener.
        let addresses = [loopbackV6.withPort(refusedPort), loopbackV4.withPort(refusedPort), good]
        let outcome = try await run { connector, done in
            connector.connect(to: addresses, timeout: .seconds(10), done)
        }
        #expect(try outcome.get().address == good.description)
    }

    @Test("when every address refuses, the last SystemError is reported")
    func allRefused() async throws {
        let (holder, port) = try refusingLoopbackPort()
        defer { holder.close() }
        let outcome = try await run { connector, done in
            connector.connect(to: [loopbackV4.withPort(port), loopbackV4.withPort(port)], timeout: .seconds(10), done)
        }
        guard case .failure(.allAttemptsFailed(let error)) = outcome else {
            Issue.record("expected allAttemptsFailed, got \(outcome)")
            return
        }
        #expect(error.errno == ECONNREFUSED)
    }

    @Test("no addresses is its own error")
    func noAddresses() async throws {
        let outcome = try await run { connector, done in connector.connect(to: [], timeout: .seconds(10), done) }
        guard case .failure(.noAddresses) = outcome else {
            Issue.record("expected noAddresses, got \(outcome)")
            return
        }
    }

    @Test("connect(host:) resolves localhost and connects (DNS and connect in one call)")
    func connectsByName() async throws {
        let listener = try Socket.listen(on: loopbackV4)
        let port = try listener.localAddress.port
        let resolver = Resolver { host, port in
            // localhost through the real resolver; the injected wrapper only pins v6 first so
            // the race also covers the ::1 → 127.0.0.1 fallback.
            Resolver.systemLookup(host, port).map { [loopbackV6.withPort(port)] + $0 }
        }
        defer { resolver.shutdown() }
        let outcome = try await run(resolver: resolver) { connector, done in
            connector.connect(host: "localhost", port: port, timeout: .seconds(10), done)
        }
        let connected = try outcome.get()
        #expect(connected.address == "127.0.0.1:\(port)")
        #expect(connected.timingsOrdered)
    }

    @Test("a DNS failure is reported as ConnectError.dns")
    func dnsFailure() async throws {
        let resolver = Resolver { host, _ in .failure(DNSError(host: host, code: EAI_NONAME)) }
        defer { resolver.shutdown() }
        let outcome = try await run(resolver: resolver) { connector, done in
            connector.connect(host: "nowhere.invalid", port: 80, timeout: .seconds(10), done)
        }
        guard case .failure(.dns(let error)) = outcome else {
            Issue.record("expected dns failure, got \(outcome)")
            return
        }
        #expect(error == DNSError(host: "nowhere.invalid", code: EAI_NONAME))
    }

    @Test("the overall timeout covers DNS: a stuck lookup times out")
    func timeoutDuringDNS() async throws {
        let release = DispatchSemaphore(value: 0)
        let resolver = Resolver { host, _ in
            _ = release.wait(timeout: .now() + eventually)
            return .failure(DNSError(host: host, code: EAI_AGAIN))
        }
        defer {
            release.signal()
            resolver.shutdown()
        }
        let outcome = try await run(resolver: resolver) { connector, done in
            connector.connect(host: "slow.test", port: 80, timeout: .milliseconds(20), done)
        }
        guard case .failure(.timedOut) = outcome else {
            Issue.record("expected timedOut, got \(outcome)")
            return
        }
    }

    /// Whether this kernel leaves a loopback connect pending behind a full accept queue: the
    /// condition of the tests that need one (a kernel that completes them all skips them).
    static func kernelLeavesConnectsPending() async throws -> Bool {
        try await blackholeTarget() != nil
    }

    /// A 127.0.0.1 address whose connects stay pending: a listener with a full accept queue
    /// makes Linux drop further SYNs. Nil if every probe still connected.
    private static func blackholeTarget() async throws -> (keepAlive: [Socket], target: SocketAddress)? {
        let listener = try Socket.listen(on: loopbackV4, backlog: 0)
        let target = try listener.localAddress
        var keepAlive = [listener]
        for _ in 0..<16 {
            let probe = try Socket.connect(to: target)
            if await !pollReady(probe.fd, events: Int16(POLLOUT), within: .milliseconds(200)) { return (keepAlive, target) }
            keepAlive.append(probe)
        }
        return nil
    }

    @Test("the overall timeout closes a connect that never completes",
          .enabled("this kernel completed every loopback connect; none stays pending") { try await kernelLeavesConnectsPending() })
    func timeoutWhileConnecting() async throws {
        let (keepAlive, target) = try #require(try await Self.blackholeTarget())
        let outcome = try await run { connector, done in
            connector.connect(to: [target, target], timeout: .milliseconds(50), done)
        }
        guard case .failure(.timedOut) = outcome else {
            Issue.record("expected timedOut, got \(outcome)")
            return
        }
        withExtendedLifetime(keepAlive) {}
    }

    @Test("a stalled first attempt is overtaken after the attempt delay, and then cancelled",
          .enabled("this kernel completed every loopback connect; none stays pending") { try await kernelLeavesConnectsPending() })
    func staggeredAttemptWins() async throws {
        let (keepAlive, stalled) = try #require(try await Self.blackholeTarget())
        let listener = try Socket.listen(on: loopbackV4)
        let good = try listener.localAddress
        let outcome = try await run(attemptDelay: .milliseconds(20)) { connector, done in
            connector.connect(to: [stalled, good], timeout: .seconds(10), done)
        }
        #expect(try outcome.get().address == good.description)
        withExtendedLifetime(keepAlive) {}
    }

    @Test("cancel closes the pending socket and completes with cancelled, exactly once")
    func cancelClosesPending() async throws {
        let listener = try Socket.listen(on: loopbackV4)
        let target = try listener.localAddress
        let completions = Atomic<Int>(0)
        let outcome = try await run { connector, done in
            connector.connect(to: [target], timeout: .seconds(10)) { result in
                completions.add(1, ordering: .relaxed)
                done(result)
            }
            // Same loop turn: the attempt is registered and still pending.
            connector.cancel()
            connector.cancel()
        }
        guard case .failure(.cancelled) = outcome else {
            Issue.record("expected cancelled, got \(outcome)")
            return
        }
        #expect(completions.load(ordering: .relaxed) == 1)
    }

    @Test("cancel while resolving completes with cancelled and ignores the late answer")
    func cancelWhileResolving() async throws {
        let release = DispatchSemaphore(value: 0)
        let resolver = Resolver { _, port in
            _ = release.wait(timeout: .now() + eventually)
            return .success([SocketAddress(ipAddress: "127.0.0.1", port: port)!])
        }
        defer { resolver.shutdown() }
        let outcome = try await run(resolver: resolver) { connector, done in
            connector.connect(host: "slow.test", port: 9, timeout: .seconds(10), done)
            connector.cancel()
            release.signal()
        }
        guard case .failure(.cancelled) = outcome else {
            Issue.record("expected cancelled, got \(outcome)")
            return
        }
    }

    @Test("a connect cancelled or timed out while its lookup waits for a worker makes no lookup")
    func givenUpLookupsAreSkipped() async throws {
        let gate = DispatchSemaphore(value: 0)
        let busy = Latch<Bool>()
        let looked = Locked<[String]>([])
        let resolver = Resolver(threadCount: 1) { host, port in
            looked.withLock { $0.append(host) }
            if host == "busy.test" {
                busy.fulfill(true)
                // Bounded, so a failed test leaves no worker parked; the test opens it at once.
                _ = gate.wait(timeout: .now() + .seconds(120))
            }
            return .failure(DNSError(host: host, code: EAI_NONAME))
        }
        defer { resolver.shutdown() }
        try await withLoop { loop in
            let ends = ["cancelled.test", "timed-out.test", "wanted.test"].map { ($0, Latch<String>()) }
            let ended = Dictionary(uniqueKeysWithValues: ends)
            @Sendable func connect(_ host: String, timeout: Duration = .seconds(60)) -> Connector {
                let connector = Connector(loop: loop, resolver: resolver)
                connector.connect(host: host, port: 9, timeout: timeout) { result in
                    let end: String = switch result {
                    case .failure(.cancelled): "cancelled"
                    case .failure(.timedOut): "timed out"
                    case .failure(.dns): "no such name"
                    default: "\(result)"
                    }
                    ended[host]?.fulfill(end)
                }
                return connector
            }
            // The one worker is busy with the first name; the others queue behind it.
            try await loop.sync { _ = connect("busy.test") }
            #expect(await busy.wait() == true)
            try await loop.sync {
                connect("cancelled.test").cancel()
                _ = connect("timed-out.test", timeout: .milliseconds(1))
            }
            #expect(await ended["cancelled.test"]?.wait() == "cancelled")
            #expect(await ended["timed-out.test"]?.wait() == "timed out")
            try await loop.sync { _ = connect("wanted.test") }
            gate.signal()
            #expect(await ended["wanted.test"]?.wait() == "no such name")
            #expect(looked.withLock { $0 } == ["busy.test", "wanted.test"], "no lookup for the names given up")
        }
    }
}
