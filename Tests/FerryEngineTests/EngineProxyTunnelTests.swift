// CONNECT tunnels at the engine level, against a scripted proxy: what CONNECT carries, that
// nothing of the request is sent before the proxy says 2xx, what a refusal or a broken answer
// becomes, and that tunnels are pooled per origin and never serve another.
@testable import FerryEngine
import FerryIO
import FerryWire
import HTTPTypes
import Testing
import TestSupport

@Suite("Engine: CONNECT tunnels")
struct EngineProxyTunnelTests {
    static let established = "HTTP/1.1 200 Connection established\r\n\r\n"

    /// A plain-HTTP request to `origin` through a tunnel at `proxyPort` (TLS plays no part in
    /// what the tunnel does, so the scripted proxy can answer as the origin too).
    static func tunnelled(
        origin: String = "origin.test", port: Int = 8443, proxyPort: Int, connectFields: HTTPFields = [:], target: String = "/"
    ) -> ExchangeRequest {
        ExchangeRequest(
            key: PoolKey(scheme: "http", host: origin, port: port,
                         route: .tunnel(TunnelProxy(host: "127.0.0.1", port: proxyPort, connectFields: connectFields))),
            head: RequestHead(method: .get, target: target, host: "\(origin):\(port)"))
    }

    @Test("CONNECT names the origin and carries the proxy's fields; the request follows in the tunnel")
    func connectThenRequest() async throws {
        let proxy = try ScriptedServer(scripts: [[
            .readHead, .send(Self.established), .readRequest, .send(EngineTest.ok("through")), .stallUntilClosed,
        ]])
        defer { proxy.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let fields: HTTPFields = [.proxyAuthorization: "Basic dXNlcjpwYXNz", .userAgent: "Ferry/0.1"]
        let delegate = await EngineTest.run(engine, Self.tunnelled(proxyPort: proxy.port, connectFields: fields))
        #expect(delegate.succeeded, "\(String(describing: delegate.ending))")
        #expect(delegate.record.body == Array("through".utf8))
        let heads = proxy.receivedRequestHeads(connection: 0)
        #expect(heads.map(\.startLine) == ["CONNECT origin.test:8443 HTTP/1.1", "GET / HTTP/1.1"])
        #expect(heads.first?.value(of: "Host") == "origin.test:8443")
        #expect(heads.first?.value(of: "Proxy-Authorization") == "Basic dXNlcjpwYXNz")
        #expect(heads.first?.value(of: "Proxy-Connection") == nil)
        #expect(heads.last?.value(of: "Proxy-Authorization") == nil, "the proxy's credential never enters the tunnel")
        #expect(delegate.record.metrics?.isProxyConnection == true)
        #expect(delegate.record.connections.first?.isProxied == true)
    }

    @Test("an IPv6 origin is bracketed in CONNECT's target and Host")
    func ipv6Origin() async throws {
        let proxy = try ScriptedServer(scripts: [[.readHead, .send(Self.established), .readRequest, .send(EngineTest.ok("")), .stallUntilClosed]])
        defer { proxy.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let delegate = await EngineTest.run(engine, Self.tunnelled(origin: "::1", port: 443, proxyPort: proxy.port))
        #expect(delegate.succeeded)
        #expect(proxy.receivedRequestHeads(connection: 0).first?.startLine == "CONNECT [::1]:443 HTTP/1.1")
        #expect(proxy.receivedRequestHeads(connection: 0).first?.value(of: "Host") == "[::1]:443")
    }

    @Test("a refusal fails with the proxy's status and head, and nothing of the request is sent")
    func refusalCarriesTheStatus() async throws {
        let refusal = EngineTest.response(status: "407 Proxy Authentication Required",
                                          ["Proxy-Authenticate: Basic realm=\"corp\"", "Content-Length: 6"], body: "denied")
        let proxy = try ScriptedServer(scripts: [[.readHead, .send(refusal), .stallUntilClosed]])
        defer { proxy.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let delegate = await EngineTest.run(engine, Self.tunnelled(proxyPort: proxy.port))
        guard case .proxyFailed(let failure)? = delegate.error?.kind, let head = failure.refusal else {
            Issue.record("expected a refused tunnel, got \(String(describing: delegate.ending))")
            return
        }
        #expect(head.status.code == 407)
        #expect(head.headerFields[.proxyAuthenticate] == "Basic realm=\"corp\"")
        #expect(failure.proxyHost == "127.0.0.1" && failure.proxyPort == proxy.port)
        #expect(delegate.error?.description == "CONNECT tunnel failed, response 407 from proxy 127.0.0.1 port \(proxy.port)")
        #expect(proxy.receivedRequestHeads(connection: 0).map(\.startLine) == ["CONNECT origin.test:8443 HTTP/1.1"])
        #expect(delegate.record.sentHeads.isEmpty)
    }

    @Test("a proxy that closes, talks first or answers garbage fails with words that name the proxy",
          arguments: [
              ("close", [ScriptStep.readHead, .close]),
              ("data after 200", [.readHead, .send(Array((established + "surprise").utf8)), .stallUntilClosed]),
              ("garbage", [.readHead, .send(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)), .stallUntilClosed]),
          ])
    func brokenAnswers(_ name: String, _ script: [ScriptStep]) async throws {
        let proxy = try ScriptedServer(scripts: [ConnectionScript(script)])
        defer { proxy.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let delegate = await EngineTest.run(engine, Self.tunnelled(proxyPort: proxy.port))
        guard case .proxyFailed(let failure)? = delegate.error?.kind else {
            Issue.record("\(name): expected a proxy failure, got \(String(describing: delegate.ending))")
            return
        }
        #expect(failure.refusal == nil)
        #expect(failure.description.contains("127.0.0.1 port \(proxy.port)"), "\(failure)")
        #expect(delegate.record.sentHeads.isEmpty)
    }

    @Test("a proxy that cannot be reached is named as the proxy")
    func unreachableProxy() async throws {
        let port = try RefusingPort()
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let delegate = await EngineTest.run(engine, Self.tunnelled(proxyPort: port.port))
        guard case .proxyFailed(let failure)? = delegate.error?.kind, case .connectFailed = failure.reason else {
            Issue.record("expected the proxy's connect failure, got \(String(describing: delegate.ending))")
            return
        }
        #expect(failure.description.hasPrefix("Failed to connect to proxy 127.0.0.1 port \(port.port): "))
    }

    @Test("a tunnel is kept alive for its origin and never serves another")
    func tunnelsArePooledPerOrigin() async throws {
        // The scripted proxy serves one connection at a time: the second origin's tunnel waits
        // in the backlog until the first connection's script (two requests) is done.
        let proxy = try ScriptedServer(scripts: [
            [.readHead, .send(Self.established), .readRequest, .send(EngineTest.ok("a1")), .readRequest,
             .send(EngineTest.ok("a2")), .close],
            [.readHead, .send(Self.established), .readRequest, .send(EngineTest.ok("b")), .stallUntilClosed],
        ])
        defer { proxy.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let first = await EngineTest.run(engine, Self.tunnelled(origin: "a.test", proxyPort: proxy.port, target: "/1"))
        async let other = EngineTest.run(engine, Self.tunnelled(origin: "b.test", proxyPort: proxy.port, target: "/b"))
        async let second = EngineTest.run(engine, Self.tunnelled(origin: "a.test", proxyPort: proxy.port, target: "/2"))
        let (b, a2) = await (other, second)
        #expect(first.succeeded && a2.succeeded && b.succeeded)
        #expect(a2.record.metrics?.isReusedConnection == true)
        #expect(proxy.receivedRequestHeads(connection: 0).map(\.startLine)
            == ["CONNECT a.test:8443 HTTP/1.1", "GET /1 HTTP/1.1", "GET /2 HTTP/1.1"])
        #expect(proxy.receivedRequestHeads(connection: 1).map(\.startLine) == ["CONNECT b.test:8443 HTTP/1.1", "GET /b HTTP/1.1"])
    }
}
