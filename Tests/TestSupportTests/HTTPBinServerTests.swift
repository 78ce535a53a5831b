import Foundation
import Testing

@testable import TestSupport

/// HTTPBinServer: echo routes, connection handling, status and redirect routes.
@Suite struct HTTPBinServerTests {
    @Test func getEchoesRequestAsJSON() async throws {
        try await HTTPBinServer.withServer { server in
            let response = try await HTTPBinTest.fetch(
                server, "/get?a=1&a=2&b=x+y%21", headers: [("user-agent", "raw"), ("X-Two", "1"), ("x-two", "2")])
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let json = try HTTPBinTest.json(response)
            #expect(json["method"] as? String == "GET")
            #expect(json["url"] as? String == "http://127.0.0.1/get?a=1&a=2&b=x+y%21")
            let args = try #require(json["args"] as? [String: Any])
            #expect(args["a"] as? [String] == ["1", "2"])
            #expect(args["b"] as? String == "x y!")
            let headers = try #require(json["headers"] as? [String: String])
            #expect(headers["User-Agent"] == "raw")
            #expect(headers["X-Two"] == "1, 2")
            #expect(json["bodyLength"] as? Int == 0)
            #expect(server.lastRequest?.uri == "/get?a=1&a=2&b=x+y%21")
            #expect(server.lastRequest?.headers.map(\.name).contains("user-agent") == true)
        }
    }

    @Test func postParsesJSONAndFormBodies() async throws {
        try await HTTPBinServer.withServer { server in
            let jsonBody = Array(#"{"k":[1,2]}"#.utf8)
            let posted = try HTTPBinTest.json(
                await HTTPBinTest.fetch(
                    server, "/post", method: "POST", headers: [("Content-Type", "application/json")], body: jsonBody))
            #expect(posted["data"] as? String == #"{"k":[1,2]}"#)
            #expect((posted["json"] as? [String: Any])?["k"] as? [Int] == [1, 2])
            let form = try HTTPBinTest.json(await HTTPBinTest.fetch(
                server, "/put", method: "PUT", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array("a=1&b=two+words".utf8)))
            #expect(form["form"] as? [String: String] == ["a": "1", "b": "two words"])
            let wrongMethod = try await HTTPBinTest.fetch(server, "/post", method: "GET")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "POST")
        }
    }

    @Test func largeChunkedUploadIsCountedButStoredCapped() async throws {
        try await HTTPBinServer.withServer { server in
            let client = try RawHTTPClient(port: server.port)
            defer { client.close() }
            try await client.send("POST /anything/up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 256 * 1024)
            for _ in 0..<12 { try await client.send(Array("40000\r\n".utf8) + chunk + Array("\r\n".utf8)) }
            try await client.send("0\r\n\r\n")
            let json = try HTTPBinTest.json(await client.readResponse())
            #expect(json["bodyLength"] as? Int == 3 * 1024 * 1024)
            #expect(json["bodyTruncated"] as? Bool == true)
            #expect((json["data"] as? String)?.utf8.count == 1024 * 1024)
        }
    }

    @Test func keepAliveServesTwoRequestsOnOneConnection() async throws {
        try await HTTPBinServer.withServer { server in
            let client = try RawHTTPClient(port: server.port)
            defer { client.close() }
            try await client.sendRequest("GET", "/get")
            #expect(try await client.readResponse().status == 200)
            try await client.sendRequest("GET", "/bytes/10")
            #expect(try await client.readResponse().body == TestBytes.pattern(count: 10))
            try await client.sendRequest("GET", "/get", headers: [("Connection", "close")])
            let last = try await client.readResponse()
            #expect(last.header("Connection") == "close")
            #expect(await client.serverClosed(within: .seconds(5)))
            #expect(server.connectionCount == 1)
            #expect(server.requestCount == 3)
            #expect(server.receivedRequests.map(\.uri) == ["/get", "/bytes/10", "/get"])
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await HTTPBinServer.withServer { server in
            let client = try RawHTTPClient(port: server.port)
            defer { client.close() }
            try await client.send("GET /delay/0.05 HTTP/1.1\r\nHost: x\r\n\r\nGET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try HTTPBinTest.json(await client.readResponse())["method"] as? String == "GET")
            #expect(try await client.readResponse().body == [0, 1, 2])
        }
    }

    @Test func closeRouteAndHTTP10CloseTheConnection() async throws {
        try await HTTPBinServer.withServer { server in
            let client = try RawHTTPClient(port: server.port)
            defer { client.close() }
            try await client.sendRequest("GET", "/close")
            #expect(try await client.readResponse().header("Connection") == "close")
            #expect(await client.serverClosed(within: .seconds(5)))

            let raw = try await RawHTTPClient.exchange(port: server.port, request: "GET /bytes/4 HTTP/1.0\r\n\r\n")
            #expect(raw.suffix(4) == [0, 1, 2, 3])
        }
    }

    @Test func headReturnsHeadersWithoutABody() async throws {
        try await HTTPBinServer.withServer { server in
            let client = try RawHTTPClient(port: server.port)
            defer { client.close() }
            for target in ["/bytes/100", "/stream-bytes/100", "/get", "/large/1000000"] {
                try await client.sendRequest("HEAD", target)
                let head = try await client.readResponse(isHEAD: true)
                #expect(head.status == 200)
            }
            // A leaked body would be parsed as the next status line.
            try await client.sendRequest("GET", "/bytes/5")
            let next = try await client.readResponse()
            #expect(next.status == 200 && next.body == TestBytes.pattern(count: 5))
            try await client.sendRequest("HEAD", "/bytes/100")
            #expect(try await client.readResponse(isHEAD: true).header("Content-Length") == "100")
        }
    }

    @Test func echoStreamsTheBodyBack() async throws {
        try await HTTPBinServer.withServer { server in
            let payload = TestBytes.pattern(count: 3 * 1024 * 1024 + 7)
            let sized = try await HTTPBinTest.fetch(server, "/echo", method: "POST", body: payload)
            #expect(sized.header("Content-Length") == String(payload.count))
            #expect(sized.body == payload)

            let client = try RawHTTPClient(port: server.port)
            defer { client.close() }
            try await client.send("PUT /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            try await client.send("3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
            let chunked = try await client.readResponse()
            #expect(chunked.chunkSizes != nil)
            #expect(chunked.text == "abcde")
        }
    }

    @Test func expectContinueGetsAnInterimResponse() async throws {
        try await HTTPBinServer.withServer { server in
            let client = try RawHTTPClient(port: server.port)
            defer { client.close() }
            try await client.send("POST /post HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
            let interim = try await client.readInterimStatusLine()
            #expect(interim.hasPrefix("HTTP/1.1 100"))
            try await client.send("hi")
            #expect(try HTTPBinTest.json(await client.readResponse())["data"] as? String == "hi")
        }
    }

    @Test func statusRedirectAndHeaderRoutes() async throws {
        try await HTTPBinServer.withServer { server in
            #expect(try await HTTPBinTest.fetch(server, "/status/418").status == 418)
            let noContent = try await HTTPBinTest.fetch(server, "/status/204")
            #expect(noContent.status == 204 && noContent.header("Content-Length") == nil)
            #expect(try await HTTPBinTest.fetch(server, "/status/301").header("Location") == "/redirect/1")
            #expect(try await HTTPBinTest.fetch(server, "/status/99").status == 400)
            #expect(try await HTTPBinTest.fetch(server, "/redirect/3").header("Location") == "/redirect/2")
            #expect(try await HTTPBinTest.fetch(server, "/redirect/1").header("Location") == "/get")
            let absolute = try await HTTPBinTest.fetch(server, "/absolute-redirect/2")
            #expect(absolute.header("Location") == "http://127.0.0.1/absolute-redirect/1")
            let to = try await HTTPBinTest.fetch(server, "/redirect-to?url=http%3A%2F%2F127.0.0.1%3A1%2Fx&status_code=307")
            #expect(to.status == 307 && to.header("Location") == "http://127.0.0.1:1/x")
            let custom = try await HTTPBinTest.fetch(server, "/response-headers?X-Test=a%20b&Cache-Control=no-store")
            #expect(custom.header("X-Test") == "a b" && custom.header("Cache-Control") == "no-store")
            #expect(try await HTTPBinTest.fetch(server, "/nope").status == 404)
        }
    }

    @Test func basicAuthAndCookies() async throws {
        try await HTTPBinServer.withServer { server in
            let denied = try await HTTPBinTest.fetch(server, "/basic-auth/u/p")
            #expect(denied.status == 401 && denied.header("WWW-Authenticate") != nil)
            let token = Data("u:p".utf8).base64EncodedString()
            let allowed = try await HTTPBinTest.fetch(server, "/basic-auth/u/p", headers: [("Authorization", "Basic \(token)")])
            #expect(try HTTPBinTest.json(allowed)["authenticated"] as? Bool == true)
            let set = try await HTTPBinTest.fetch(server, "/cookies/set?a=1&b=2")
            #expect(set.status == 302 && set.head.fields.filter { $0.name == "Set-Cookie" }.count == 2)
            let cookies = try HTTPBinTest.json(await HTTPBinTest.fetch(server, "/cookies", headers: [("Cookie", "a=1; b=2")]))
            #expect(cookies["cookies"] as? [String: String] == ["a": "1", "b": "2"])
        }
    }

    @Test func withServerShutsDownAfterwards() async throws {
        let port = try await HTTPBinServer.withServer { server in
            let response = try await HTTPBinTest.fetch(server, "/get")
            #expect(response.status == 200)
            return server.port
        }
        await #expect(throws: TestServerError.self) { _ = try await RawHTTPClient(port: port, timeout: .seconds(1)).readResponse() }
    }

    @MainActor @Test func withServerRunsInTheCallersIsolation() async throws {
        var seen: [Int] = []
        try await HTTPBinServer.withServer { server in
            seen.append(try await HTTPBinTest.fetch(server, "/status/202").status)
        }
        #expect(seen == [202])
    }

    @Test func refusesNonLoopbackHostsAndShutsDownTwice() async throws {
        #expect(throws: TestServerError.self) { _ = try HTTPBinServer(host: "0.0.0.0") }
        let server = try HTTPBinServer()
        server.shutdown()
        server.shutdown()
    }

    @Test func listensOnIPv6LoopbackWhenTheHostHasIt() async throws {
        // Some CI containers have no ::1; the IPv4 tests cover the server itself.
        guard let server = try? HTTPBinServer(host: "::1") else { return }
        defer { server.shutdown() }
        #expect(server.baseURLString == "http://[::1]:\(server.port)")
        let client = try RawHTTPClient(port: server.port, host: "::1")
        defer { client.close() }
        try await client.sendRequest("GET", "/ip")
        #expect(try HTTPBinTest.json(await client.readResponse())["origin"] as? String == "::1")
    }
}
