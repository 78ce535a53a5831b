// Session.taskExecutor(for:): code that prefers the session's loop executor is resumed on the
// loop's thread, child tasks included, and is never stranded once the loop has stopped.
import Dispatch
import FerryEngine
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session loop executor")
struct SessionExecutorTests {
    /// The calling thread's name (the engine names its loop threads `ferry-io-N`).
    static func threadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func awaitingCodeRunsOnTheLoopThread() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/bytes/1000")
            let executor = try #require(session.taskExecutor(for: url))
            let threads = try await withTaskExecutorPreference(executor) {
                var threads: Set<String> = []
                for _ in 0..<20 {
                    let (data, response) = try await session.data(for: NetworkRequest(url: url))
                    #expect(response.statusCode == 200)
                    #expect(Array(data) == TestBytes.pattern(count: 1000))
                    threads.insert(Self.threadName())
                }
                return threads
            }
            #expect(threads.count == 1)
            #expect(threads.first?.hasPrefix("ferry-io") == true, "\(threads)")
            #expect(server.connectionCount == 1, "one kept-alive connection served them all")
        }
    }

    @Test func childTasksInheritThePreference() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/bytes/5000")
            let threads = try await withTaskExecutorPreference(session.taskExecutor(for: url)) {
                try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            let (body, _) = try await session.bytes(for: NetworkRequest(url: url))
                            let data = try await body.collect()
                            #expect(data.count == 5000)
                            return Self.threadName()
                        }
                    }
                    return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                }
            }
            #expect(threads.count == 1 && threads.first?.hasPrefix("ferry-io") == true, "\(threads)")
        }
    }

    @Test func aStoppedLoopHandsItsWorkOn() async throws {
        let queue = DispatchQueue(label: "executor-test")
        let delegate = SessionEvents(queue: queue)
        let session = Session(configuration: SessionTest.configuration(), delegate: delegate, delegateQueue: queue)
        let executor = try #require(session.taskExecutor(for: URL(string: "http://127.0.0.1:1/")!))
        // Start the loop, then stop it with the session.
        await withTaskExecutorPreference(executor) { await Task.yield() }
        session.invalidateAndCancel()
        #expect(await delegate.invalidated.wait(timeout: .seconds(30)), "the engine shut down")
        let resumed = await withTaskExecutorPreference(executor) { () async -> Bool in
            try? await Task.sleep(for: .milliseconds(1))
            return true
        }
        #expect(resumed, "the task ran on after the loop stopped")
    }

    /// The engine picks an origin's loop by its pool key's loop affinity: the executor named
    /// for a URL must be the loop of every exchange for it, whatever the request carries. (An
    /// https key's TLS context, and a tunnel's CONNECT fields, once put awaiting code on
    /// another loop than its connections, half the time with two loops, at two thread switches
    /// a request.)
    @Test(arguments: [
        ("http://127.0.0.1:8080/a", false), ("https://127.0.0.1:8443/a", false),
        ("https://example.test/b", true), ("http://example.test/c", true),
    ])
    func theExecutorIsTheLoopOfTheOriginsExchanges(url: String, proxied: Bool) throws {
        var configuration = SessionTest.configuration()
        // Several loops, so an executor for the wrong loop would be another object.
        configuration.eventLoopCount = 4
        configuration.proxy = proxied ? .http(URL(string: "http://127.0.0.1:3128")!) : .none
        let session = Session(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: url))
        let (routeKey, engine) = try #require(session.route(of: url))
        #expect(routeKey.isProxied == proxied)
        // A plain request, and one with its own User-Agent and proxy credentials (which a
        // tunnel's CONNECT carries, so they are part of its pool key).
        var dressed = NetworkRequest(url: url)
        try dressed.setValue("agent/1", forHTTPHeaderField: "User-Agent")
        try dressed.setValue("Basic dXNlcjpwYXNz", forHTTPHeaderField: "Proxy-Authorization")
        for request in [NetworkRequest(url: url), dressed] {
            let (exchange, _, _) = try session.prepare(request, priority: 0.5, bandwidth: nil)
            #expect((exchange.key.tls != nil) == url.absoluteString.hasPrefix("https:"))
            #expect(exchange.key.loopAffinity == routeKey.loopAffinity)
            #expect(engine.taskExecutor(for: routeKey) === engine.taskExecutor(for: exchange.key))
        }
    }

    @Test func noExecutorForAURLTheSessionCannotRequest() {
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        #expect(session.taskExecutor(for: URL(string: "ftp://127.0.0.1/")!) == nil)
        #expect(session.taskExecutor(for: URL(string: "http:///nohost")!) == nil)
    }
}
