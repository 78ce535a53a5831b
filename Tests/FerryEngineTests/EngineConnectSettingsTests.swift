// The session's connect settings reach the engine once, at its creation, and every exchange
// uses them: resolved addresses route a name without DNS, and the connect timeout bounds a
// connection that never completes its TLS handshake.
@testable import FerryEngine
import FerryIO
import FerryTLS
import FerryWire
import HTTPTypes
import Testing
import TestSupport

@Suite("Engine: connect settings")
struct EngineConnectSettingsTests {
    @Test("a resolved address routes a name the resolver would never find")
    func resolvedAddressRoutesTheName() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .send(EngineTest.ok("routed")), .stallUntilClosed]])
        defer { server.shutdown() }
        let engine = try HTTPClientEngine(
            loopCount: 1, maxConnectionsPerHost: 6, idleTimeout: .seconds(60),
            connect: ConnectSettings(resolvedAddresses: ["ferry.invalid": "127.0.0.1"]))
        defer { engine.shutdown() }
        let request = ExchangeRequest(
            key: PoolKey(scheme: "http", host: "ferry.invalid", port: server.port),
            head: RequestHead(method: .get, target: "/", host: "ferry.invalid:\(server.port)"))
        let delegate = await EngineTest.run(engine, request)
        #expect(delegate.succeeded, "\(String(describing: delegate.ending))")
        #expect(delegate.record.body == Array("routed".utf8))
        #expect(server.receivedRequestHeads(connection: 0).first?.value(of: "Host") == "ferry.invalid:\(server.port)")
    }

    @Test("the connect timeout covers a TLS handshake the server never answers")
    func connectTimeoutCoversTheHandshake() async throws {
        let server = try ScriptedServer(scripts: [[.stallUntilClosed(limit: .seconds(30))]])
        defer { server.shutdown() }
        let engine = try HTTPClientEngine(
            loopCount: 1, maxConnectionsPerHost: 6, idleTimeout: .seconds(60),
            connect: ConnectSettings(timeout: .milliseconds(300)))
        defer { engine.shutdown() }
        var request = ExchangeRequest(
            key: PoolKey(scheme: "https", host: "localhost", port: server.port),
            head: RequestHead(method: .get, target: "/", host: "localhost:\(server.port)"))
        request.key.tls = try TLSClientContext(configuration: TLSConfiguration())
        let delegate = await EngineTest.run(engine, request)
        guard case .connectTimedOut(let host, let port)? = delegate.error?.kind else {
            Issue.record("expected connectTimedOut, got \(String(describing: delegate.ending))")
            return
        }
        #expect(host == "localhost")
        #expect(port == server.port)
    }
}
