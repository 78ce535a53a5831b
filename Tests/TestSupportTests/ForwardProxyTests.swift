import Foundation
import Testing

@testable import TestSupport

/// ForwardProxy, driven with raw sockets against the in-process origins: forwarding, refusals,
/// CONNECT and the record (authentication: ForwardProxyAuthTests). Every wait is a bounded
/// read; nothing sleeps.
@Suite struct ForwardProxyTests {
    // MARK: - Forwarding

    @Test func absoluteFormGetIsForwardedInOriginFormWithoutHopByHopFields() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy { proxy in
                let target = "\(origin.baseURLString)/get?a=1"
                let response = try await ProxyTest.exchange(proxy, """
                    GET \(target) HTTP/1.1\r
                    Host: somewhere-else.invalid\r
                    Proxy-Connection: keep-alive\r
                    Proxy-Authorization: Basic dXNlcjpwYXNz\r
                    Connection: X-Hop, keep-alive\r
                    X-Hop: 1\r
                    Keep-Alive: timeout=5\r
                    TE: trailers\r
                    X-Kept: 2\r
                    \r

                    """)
                #expect(response.status == 200)
                let json = try HTTPBinTest.json(response)
                #expect((json["args"] as? [String: String])?["a"] == "1")
                let seen = try #require(origin.lastRequest)
                #expect(seen.uri == "/get?a=1")
                #expect(seen.value(of: "host") == "127.0.0.1:\(origin.port)")
                for name in ["proxy-connection", "proxy-authorization", "connection", "x-hop", "keep-alive", "te"] {
                    #expect(seen.value(of: name) == nil, "\(name) was forwarded")
                }
                #expect(seen.value(of: "x-kept") == "2")
                // The proxy records what the client sent, hop-by-hop fields included.
                let recorded = try #require(proxy.lastRequest)
                #expect(recorded.method == "GET")
                #expect(recorded.uri == target)
                #expect(recorded.headers.map(\.name) == [
                    "Host", "Proxy-Connection", "Proxy-Authorization", "Connection", "X-Hop", "Keep-Alive", "TE", "X-Kept",
                ])
                #expect(proxy.connectAttempts == ["127.0.0.1:\(origin.port)"])
                #expect(proxy.connectionCount == 1)
                #expect(proxy.tunnelCount == 0)
            }
        }
    }

    @Test func postBodiesAreRelayedWithContentLengthAndChunked() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy { proxy in
                let client = try ProxyTest.client(proxy)
                defer { client.close() }
                try await client.send(
                    "POST \(origin.baseURLString)/post HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world")
                let first = try HTTPBinTest.json(await client.readResponse())
                #expect(first["data"] as? String == "hello world")
                try await client.send(
                    "POST \(origin.baseURLString)/post HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n")
                let second = try HTTPBinTest.json(await client.readResponse())
                #expect(second["data"] as? String == "hello world")
                #expect(second["bodyLength"] as? Int == 11)
                #expect(origin.lastRequest?.value(of: "transfer-encoding") == "chunked")
            }
        }
    }

    @Test func keepAliveCarriesRequestsToTwoOrigins() async throws {
        try await HTTPBinServer.withServer { first in
            try await HTTPBinServer.withServer { second in
                try await ForwardProxy.withProxy { proxy in
                    let client = try ProxyTest.client(proxy)
                    defer { client.close() }
                    try await client.send("GET \(first.baseURLString)/get?n=1 HTTP/1.1\r\nHost: x\r\n\r\n")
                    #expect(try await client.readResponse().status == 200)
                    try await client.send("GET \(second.baseURLString)/bytes/3000 HTTP/1.1\r\nHost: x\r\n\r\n")
                    let bytes = try await client.readResponse()
                    #expect(bytes.body == TestBytes.pattern(count: 3000))
                    try await client.send("HEAD \(second.baseURLString)/bytes/10 HTTP/1.1\r\nHost: x\r\n\r\n")
                    let head = try await client.readResponse(isHEAD: true)
                    #expect(head.header("Content-Length") == "10")
                    try await client.send("GET \(first.baseURLString)/status/204 HTTP/1.1\r\nHost: x\r\n\r\n")
                    #expect(try await client.readResponse().status == 204)
                    #expect(proxy.connectionCount == 1)
                    #expect(proxy.requestCount == 4)
                    #expect(first.requestCount == 2)
                    #expect(second.requestCount == 2)
                }
            }
        }
    }

    @Test func chunkedAndCloseDelimitedResponsesAreRelayed() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy { proxy in
                let client = try ProxyTest.client(proxy)
                defer { client.close() }
                try await client.send("GET \(origin.baseURLString)/stream-bytes/1000?chunk_size=400 HTTP/1.1\r\nHost: x\r\n\r\n")
                let chunked = try await client.readResponse()
                #expect(chunked.chunkSizes == [400, 400, 200])
                #expect(chunked.body == TestBytes.pattern(count: 1000))
                try await client.send("GET \(origin.baseURLString)/no-length?size=500 HTTP/1.1\r\nHost: x\r\n\r\n")
                let delimited = try await client.readResponse()
                #expect(delimited.body == TestBytes.pattern(count: 500))
                #expect(delimited.header("Connection") == "close")
            }
        }
    }

    @Test func expectContinueIsPassedOnBeforeTheBody() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy { proxy in
                let client = try ProxyTest.client(proxy)
                defer { client.close() }
                try await client.send(
                    "PUT \(origin.baseURLString)/put HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
                #expect(try await client.readInterimStatusLine().hasPrefix("HTTP/1.1 100"))
                try await client.send("data")
                let json = try HTTPBinTest.json(await client.readResponse())
                #expect(json["data"] as? String == "data")
            }
        }
    }

    @Test func localhostTargetReachesTheLoopbackOrigin() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy { proxy in
                let response = try await ProxyTest.exchange(
                    proxy, "GET http://localhost:\(origin.port)/get HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                #expect(response.status == 200)
                #expect(origin.lastRequest?.value(of: "host") == "localhost:\(origin.port)")
            }
        }
    }

    @Test func ipv6ProxyForwardsToAnIPv6Origin() async throws {
        guard let origin = try? HTTPBinServer(host: "::1") else { return }  // no IPv6 here
        try await origin.run { origin in
            try await ForwardProxy.withProxy(host: "::1") { proxy in
                #expect(proxy.proxyURLString == "http://[::1]:\(proxy.port)")
                let client = try RawHTTPClient(port: proxy.port, host: "::1", timeout: .seconds(20))
                defer { client.close() }
                try await client.send("GET http://[::1]:\(origin.port)/get HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await client.readResponse().status == 200)
                #expect(origin.lastRequest?.value(of: "host") == "[::1]:\(origin.port)")
                try await client.send("CONNECT [::1]:\(origin.port) HTTP/1.1\r\n\r\n")
                #expect(try await client.readInterimStatusLine() == "HTTP/1.1 200 Connection established")
                #expect(proxy.tunnelTargets == ["[::1]:\(origin.port)"])
            }
        }
    }

    // MARK: - Refusals

    @Test func originFormTargetGets400AndTheConnectionCloses() async throws {
        try await ForwardProxy.withProxy { proxy in
            let client = try ProxyTest.client(proxy)
            defer { client.close() }
            try await client.send("GET /get HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.header("Connection") == "close")
            #expect(await client.serverClosed(within: .seconds(10)))
            #expect(proxy.connectAttempts.isEmpty)
        }
    }

    @Test(arguments: [
        "GET http://127.0.0.1:80/ HTTP/1.1\r\nBad Field\r\n\r\n",
        "GET http://127.0.0.1:80/ HTTP/1.1\r\nName : value\r\n\r\n",
        "GET http://127.0.0.1:80/ HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n",
        "GET http://127.0.0.1:80/ HTTP/2.0\r\n\r\n",
        "GET  http://127.0.0.1:80/ HTTP/1.1\r\n\r\n",
        "POST http://127.0.0.1:80/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "POST http://127.0.0.1:80/ HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
        "GET https://127.0.0.1:80/ HTTP/1.1\r\n\r\n",
        "CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n",
    ])
    func malformedRequestsGet400AndNoConnection(request: String) async throws {
        try await ForwardProxy.withProxy { proxy in
            let raw = try await RawHTTPClient.exchange(port: proxy.port, request: request, timeout: .seconds(10))
            #expect(String(decoding: raw, as: UTF8.self).hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
            #expect(proxy.connectAttempts.isEmpty)
        }
    }

    @Test func headOverTheLimitGets400() async throws {
        try await ForwardProxy.withProxy { proxy in
            let big = String(repeating: "a", count: 70 * 1024)
            let raw = try await RawHTTPClient.exchange(
                port: proxy.port, request: "GET http://127.0.0.1:80/ HTTP/1.1\r\nX-Big: \(big)\r\n\r\n", timeout: .seconds(10))
            #expect(String(decoding: raw, as: UTF8.self).hasPrefix("HTTP/1.1 400 "))
        }
    }

    @Test func nonLocalTargetsGet403WithoutAnyConnectionAttempt() async throws {
        try await ForwardProxy.withProxy { proxy in
            let client = try ProxyTest.client(proxy)
            defer { client.close() }
            for target in ["http://example.com/", "http://93.184.215.14:80/x", "http://[2001:db8::1]:8080/", "http://127.0.0.2/"] {
                try await client.send("POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
                let response = try await client.readResponse()
                #expect(response.status == 403, "\(target)")
            }
            try await client.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
            #expect(try await client.readResponse().status == 403)
            #expect(proxy.connectAttempts.isEmpty)
            #expect(proxy.tunnelCount == 0)
            #expect(proxy.requestCount == 5)
            #expect(proxy.connectionCount == 1)
        }
    }

    @Test func unreachableOriginGets502() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        try await ForwardProxy.withProxy { proxy in
            let client = try ProxyTest.client(proxy)
            defer { client.close() }
            try await client.send("GET http://127.0.0.1:\(refusing.port)/ HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 502)
            try await client.send("CONNECT 127.0.0.1:\(refusing.port) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 502)
            #expect(proxy.connectAttempts == Array(repeating: "127.0.0.1:\(refusing.port)", count: 2))
            #expect(proxy.tunnelCount == 0)
        }
    }

    @Test func refusingModeAnswersEveryConnectAndCloses() async throws {
        try await HTTPBinServer.withServer { origin in
            let refusal = ForwardProxy.ConnectRefusal(status: 403, body: "no tunnels here\n")
            try await ForwardProxy.withProxy(connectRefusal: refusal) { proxy in
                let client = try ProxyTest.client(proxy)
                defer { client.close() }
                try await client.send("CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
                let response = try await client.readResponse()
                #expect(response.status == 403)
                #expect(response.text == "no tunnels here\n")
                #expect(response.header("Connection") == "close")
                #expect(await client.serverClosed(within: .seconds(10)))
                #expect(proxy.tunnelCount == 0)
                #expect(proxy.connectAttempts.isEmpty)
                #expect(origin.connectionCount == 0)
                // Plain forwarding still works.
                let plain = try await ProxyTest.exchange(proxy, "GET \(origin.baseURLString)/get HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(plain.status == 200)
            }
        }
    }

    // MARK: - CONNECT

    @Test func connectRelaysAnHTTPExchangeThroughTheTunnel() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy { proxy in
                let client = try ProxyTest.client(proxy)
                defer { client.close() }
                let authority = "127.0.0.1:\(origin.port)"
                try await client.send("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n")
                #expect(try await client.readInterimStatusLine() == "HTTP/1.1 200 Connection established")
                try await client.send("POST /post HTTP/1.1\r\nHost: \(authority)\r\nContent-Length: 6\r\n\r\ntunnel")
                let json = try HTTPBinTest.json(await client.readResponse())
                #expect(json["data"] as? String == "tunnel")
                try await client.send("GET /bytes/100000 HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n\r\n")
                #expect(try await client.readResponse().body == TestBytes.pattern(count: 100_000))
                #expect(await client.serverClosed(within: .seconds(10)))
                #expect(proxy.tunnelCount == 1)
                #expect(proxy.tunnelTargets == [authority])
                #expect(origin.receivedRequests.map(\.uri) == ["/post", "/bytes/100000"])
                #expect(proxy.receivedRequests.map(\.method) == ["CONNECT"])
            }
        }
    }

    @Test func connectPassesHalfClosesBothWays() async throws {
        // The origin reads "hello", answers, then expects the client's FIN (a read ending in
        // closedByPeer, recorded as the one mismatch) and closes.
        let origin = try ScriptedServer(scripts: [[.readBytes(5), .send("world"), .readBytes(1)]])
        try await origin.run { origin in
            try await ForwardProxy.withProxy { proxy in
                let client = try ProxyTest.client(proxy)
                defer { client.close() }
                try await client.send("CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\n\r\n")
                #expect(try await client.readInterimStatusLine() == "HTTP/1.1 200 Connection established")
                try await client.send("hello")
                client.shutdownWrite()
                #expect(try await client.readUntilClose() == Array("world".utf8))
                #expect(await origin.waitForFinishedConnections(1))
                #expect(origin.mismatches.count == 1)
                #expect(origin.mismatches.first?.contains("closedByPeer") == true)
            }
        }
    }

    @Test func connectCarriesTLSToTheTLSServer() async throws {
        try await TLSTestServer.withServer { origin in
            try await ForwardProxy.withProxy { proxy in
                let result = try await ProxyTest.curl(
                    ["--proxy", proxy.proxyURLString, "--cacert", TestCertificateFiles.path("root-ca.pem")],
                    origin.url("/get?via=proxy"))
                #expect(result.status == 0, "\(result)")
                let json = try HTTPBinTest.json(result.stdout)
                #expect(json["url"] as? String == "https://127.0.0.1:\(origin.port)/get?via=proxy")
                #expect(proxy.tunnelTargets == ["127.0.0.1:\(origin.port)"])
                #expect(origin.handshakeCount == 1)
            }
        }
    }

    @Test func shutdownClosesAnOpenTunnel() async throws {
        try await HTTPBinServer.withServer { origin in
            let proxy = try ForwardProxy()
            let client = try ProxyTest.client(proxy)
            defer { client.close() }
            try await client.send("CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\n\r\n")
            #expect(try await client.readInterimStatusLine() == "HTTP/1.1 200 Connection established")
            await proxy.shutdownGracefully()
            // Closed by the shutdown, not by the tunnel's idle timeout (30 s): a bounded wait, no stopwatch.
            #expect(await client.serverClosed(within: .seconds(10)))
        }
    }
}

/// Helpers for the ForwardProxy tests.
enum ProxyTest {
    /// A raw connection to the proxy.
    static func client(_ proxy: ForwardProxy) throws -> RawHTTPClient {
        try RawHTTPClient(port: proxy.port, timeout: .seconds(20))
    }

    /// Sends `request` on a new connection to the proxy and reads one response.
    static func exchange(_ proxy: ForwardProxy, _ request: String) async throws -> RawHTTPResponse {
        let client = try client(proxy)
        defer { client.close() }
        try await client.send(request)
        return try await client.readResponse()
    }

    /// `curl -sS --max-time 10 ARGUMENTS… URL`, with no proxy from the environment (the
    /// arguments name the one to use).
    static func curl(_ arguments: [String], _ url: URL) async throws -> CommandResult {
        try await CommandRunner.run(
            TLSClientTools.curlPath, ["-sS", "--max-time", "10"] + arguments + [url.absoluteString], timeLimit: 20,
            environment: ["http_proxy": "", "https_proxy": "", "HTTPS_PROXY": "", "all_proxy": "", "ALL_PROXY": "", "no_proxy": ""])
    }

    /// A `Digest …` answer to `challenge` (qop=auth, nc 1), computed here step by step
    /// (RFC 7616 §3.4.1) with only the parsing and the hash function taken from TestSupport.
    static func digestAnswer(
        _ challenge: String, algorithm: String, method: String, uri: String, user: String, password: String
    ) throws -> String {
        let params = try #require(DigestVerifier.parameters(String(challenge.dropFirst("Digest ".count))))
        let realm = try #require(params["realm"])
        let nonce = try #require(params["nonce"])
        let opaque = try #require(params["opaque"])
        #expect(params["qop"] == "auth")
        let sha256 = algorithm == "SHA-256"
        let ha1 = DigestVerifier.hexDigest("\(user):\(realm):\(password)", sha256: sha256)
        let ha2 = DigestVerifier.hexDigest("\(method):\(uri)", sha256: sha256)
        let cnonce = "0a4f113b"
        let response = DigestVerifier.hexDigest("\(ha1):\(nonce):00000001:\(cnonce):auth:\(ha2)", sha256: sha256)
        return "Digest username=\"\(user)\", realm=\"\(realm)\", nonce=\"\(nonce)\", uri=\"\(uri)\", "
            + "algorithm=\(algorithm), response=\"\(response)\", qop=auth, nc=00000001, cnonce=\"\(cnonce)\", "
            + "opaque=\"\(opaque)\""
    }
}
