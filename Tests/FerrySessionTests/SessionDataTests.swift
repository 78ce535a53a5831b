// data(for:) against the SwiftNIO HTTPBin server: what goes out (default and custom headers,
// Host) and what comes back (status, fields, length, MIME type).
import Foundation
import HTTPTypes
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session data(for:)")
struct SessionDataTests {
    @Test("GET /get sends the default headers and Host, and reads the JSON echo")
    func getSendsDefaultHeaders() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/get?a=1")))
            #expect(response.statusCode == 200)
            let json = try SessionTest.json(data)
            #expect(json["method"] as? String == "GET")
            #expect(json["url"] as? String == "http://127.0.0.1:\(server.port)/get?a=1")
            #expect((json["args"] as? [String: String])?["a"] == "1")
            let headers = try SessionTest.headers(json)
            #expect(headers["User-Agent"] == "Ferry/0.1")
            #expect(headers["Accept"] == "*/*")
            #expect(headers["Accept-Encoding"] == "gzip, deflate")
            #expect(headers["Host"] == "127.0.0.1:\(server.port)")
            let head = try #require(server.lastRequest)
            #expect(head.method == "GET")
            #expect(head.uri == "/get?a=1")
            #expect(head.version == "HTTP/1.1")
            #expect(head.values(of: "Host") == ["127.0.0.1:\(server.port)"])
            // A GET without a body carries no framing field at all.
            #expect(head.value(of: "Content-Length") == nil)
            #expect(head.value(of: "Transfer-Encoding") == nil)
        }
    }

    @Test("a header set on the request arrives, and replaces the session's field of that name")
    func requestHeadersArriveAndReplaceSessionHeaders() async throws {
        try await HTTPBinServer.withServer { server in
            let configuration = SessionTest.configuration {
                $0.httpAdditionalHeaders[HTTPField.Name("X-Session")!] = "session"
            }
            let session = Session(configuration: configuration)
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/get"))
            try request.setValue("custom value", forHTTPHeaderField: "X-Custom")
            try request.setValue("Tester/2", forHTTPHeaderField: "User-Agent")
            let (data, _) = try await session.data(for: request)
            let headers = try SessionTest.headers(try SessionTest.json(data))
            #expect(headers["X-Custom"] == "custom value")
            #expect(headers["X-Session"] == "session")
            #expect(headers["User-Agent"] == "Tester/2")
            let head = try #require(server.lastRequest)
            #expect(head.values(of: "User-Agent") == ["Tester/2"], "the session's User-Agent must not be sent too")
        }
    }

    @Test("a request's Accept-Encoding replaces Ferry's and is sent once")
    func requestAcceptEncodingWins() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/get"))
            try request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            _ = try await session.data(for: request)
            #expect(server.lastRequest?.values(of: "Accept-Encoding") == ["identity"])
        }
    }

    @Test("a Host set on the request replaces Ferry's, once, and the delegate sees it")
    func hostOverride() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "host.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            var request = NetworkRequest(url: server.url("/get"))
            try request.setValue("example.test:8080", forHTTPHeaderField: "Host")
            _ = try await session.data(for: request, delegate: delegate)
            #expect(server.lastRequest?.values(of: "Host") == ["example.test:8080"])
            #expect(delegate.sentHead?.headerFields[values: HTTPField.Name("Host")!] == ["example.test:8080"])
        }
    }

    @Test("framing fields set by the caller are ignored: the body decides Content-Length")
    func callerFramingIgnored() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/post"), method: .post, body: .bytes(Array("abc".utf8)))
            try request.setValue("999", forHTTPHeaderField: "Content-Length")
            try request.setValue("chunked", forHTTPHeaderField: "Transfer-Encoding")
            let (data, _) = try await session.data(for: request)
            #expect(try SessionTest.json(data)["bodyLength"] as? Int == 3)
            let head = try #require(server.lastRequest)
            #expect(head.values(of: "Content-Length") == ["3"])
            #expect(head.values(of: "Transfer-Encoding").isEmpty)
        }
    }

    @Test("NetworkResponse carries status, fields, announced length and MIME type")
    func responseFields() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/response-headers?X-Test=one&X-Test=two")
            let (data, response) = try await session.data(for: NetworkRequest(url: url))
            #expect(response.statusCode == 200)
            #expect(response.url == url)
            #expect(response.httpVersion == "HTTP/1.1")
            #expect(response.value(forHTTPHeaderField: "x-test") == "one, two")
            #expect(response.headerFields[values: HTTPField.Name("X-Test")!] == ["one", "two"])
            #expect(response.mimeType == "application/json")
            #expect(response.expectedContentLength == Int64(data.count))
        }
    }

    @Test("mimeType is lower-cased and loses its parameters")
    func mimeTypeNormalised() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/echo"), method: .post, body: .bytes(Array("hi".utf8)))
            try request.setValue("Text/Plain; charset=utf-8", forHTTPHeaderField: "Content-Type")
            let (data, response) = try await session.data(for: request)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "Text/Plain; charset=utf-8")
            #expect(response.mimeType == "text/plain")
            #expect(String(decoding: data, as: UTF8.self) == "hi")
        }
    }

    @Test("status codes other than 2xx are responses, not errors", arguments: [204, 404, 500])
    func statusCodes(code: Int) async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/status/\(code)")))
            #expect(response.statusCode == code)
            #expect(data.isEmpty)
        }
    }

    @Test("HEAD reads the head only, although Content-Length announces a body")
    func headHasNoBody() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let request = NetworkRequest(url: server.url("/bytes/1000"), method: .head)
            let (data, response) = try await session.data(for: request)
            #expect(response.expectedContentLength == 1000)
            #expect(data.isEmpty)
            // The connection is still in step: the next request on it works.
            let (next, _) = try await session.data(for: NetworkRequest(url: server.url("/bytes/10")))
            #expect(Array(next) == TestBytes.pattern(count: 10))
            #expect(server.connectionCount == 1)
        }
    }

    @Test("POST, PUT, PATCH and DELETE reach their routes with the method")
    func methods() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let cases: [(HTTPRequest.Method, String)] = [(.post, "/post"), (.put, "/put"), (.patch, "/patch"), (.delete, "/delete")]
            for (method, path) in cases {
                let request = NetworkRequest(url: server.url(path), method: method, body: .bytes(Array("x=1".utf8)))
                let (data, response) = try await session.data(for: request)
                #expect(response.statusCode == 200, "\(method)")
                let json = try SessionTest.json(data)
                #expect(json["method"] as? String == method.rawValue)
                #expect(json["data"] as? String == "x=1")
            }
        }
    }

    @Test("the target is the URL's path and query as encoded; an empty path is /")
    func requestTarget() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            _ = try await session.data(for: NetworkRequest(url: server.baseURL))
            #expect(server.lastRequest?.uri == "/")
            let (data, _) = try await session.data(for: NetworkRequest(url: server.url("/anything/a%20b?q=%2F&r=1+2")))
            #expect(server.lastRequest?.uri == "/anything/a%20b?q=%2F&r=1+2")
            #expect((try SessionTest.json(data)["args"] as? [String: String]) == ["q": "/", "r": "1 2"])
        }
    }
}
