// HTTPSessionManager (AFHTTPSessionManager): base URL resolution, the verbs with parameters
// and headers, HEAD, a request that cannot be made, and the https rule for pinning.
import Dispatch
import Ferry
import Foundation
import Testing
import TestSupport

@Suite("HTTPSessionManager")
struct HTTPSessionManagerTests {
    @Test("relative strings resolve against the base URL as RFC 3986 says", arguments: [
        ("http://example.com/v1/", "foo", "http://example.com/v1/foo"),
        ("http://example.com/v1", "foo", "http://example.com/v1/foo"),
        ("http://example.com/v1/", "/foo", "http://example.com/foo"),
        ("http://example.com/v1/", "foo/", "http://example.com/v1/foo/"),
        ("http://example.com/v1/", "foo?bar=baz", "http://example.com/v1/foo?bar=baz"),
        ("http://example.com/v1/", "../foo", "http://example.com/foo"),
        ("http://example.com/v1/", "http://other.com/", "http://other.com/"),
        ("http://example.com/v1/", "//other.com/x", "http://other.com/x"),
        ("http://example.com", "foo", "http://example.com/foo"),
        ("http://example.com/v1/", "", "http://example.com/v1/"),
    ])
    func resolution(base: String, relative: String, expected: String) throws {
        let manager = HTTPSessionManager(baseURL: URL(string: base), sessionConfiguration: ManagerTest.configuration())
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        #expect(try manager.url(for: relative).absoluteString == expected)
    }

    @Test("a base URL with a path but no trailing slash gets one")
    func baseGetsSlash() {
        let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v2"))
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        #expect(manager.baseURL?.absoluteString == "https://api.example.com/v2/")
        let bare = HTTPSessionManager(baseURL: URL(string: "https://api.example.com"))
        defer { bare.invalidateSessionCancelingTasks(true, resetSession: false) }
        #expect(bare.baseURL?.absoluteString == "https://api.example.com")
    }

    @Test("GET puts parameters in the query; headers replace the serializer's fields")
    func getWithParametersAndHeaders() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = HTTPSessionManager(baseURL: server.baseURL, sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            manager.responseSerializer = HTTPResponseSerializer()
            let (object, response) = try await manager.get("get", parameters: ["q": "café au lait", "page": 2],
                                                           headers: ["User-Agent": "api-test/1", "X-Trace": "7"])
            #expect(response.statusCode == 200)
            let json = try ManagerTest.json(object)
            #expect(json["args"] as? [String: String] == ["q": "café au lait", "page": "2"])
            let head = try #require(server.lastRequest)
            #expect(head.uri == "/get?page=2&q=caf%C3%A9%20au%20lait")
            #expect(head.value(of: "User-Agent") == "api-test/1")
            #expect(head.value(of: "X-Trace") == "7")
            #expect(head.value(of: "Accept-Language") != nil)
        }
    }

    @Test("POST, PUT, PATCH and DELETE reach the server with their parameters", arguments: [
        ("post", "form"), ("put", "form"), ("patch", "form"), ("delete", "args"),
    ])
    func verbs(verb: String, carrier: String) async throws {
        try await HTTPBinServer.withServer { server in
            let manager = HTTPSessionManager(baseURL: server.url("/"), sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            manager.responseSerializer = HTTPResponseSerializer()
            let parameters: Parameters = ["name": "ferry", "tags": ["a", "b"]]
            let object: (any Sendable)?
            switch verb {
            case "post": object = try await manager.post(verb, parameters: parameters).responseObject
            case "put": object = try await manager.put(verb, parameters: parameters).responseObject
            case "patch": object = try await manager.patch(verb, parameters: parameters).responseObject
            default: object = try await manager.delete(verb, parameters: parameters).responseObject
            }
            let json = try ManagerTest.json(object)
            #expect(json["method"] as? String == verb.uppercased())
            let values = try #require(json[carrier] as? [String: Any])
            #expect(values["name"] as? String == "ferry")
            #expect(values["tags[]"] as? [String] == ["a", "b"])
        }
    }

    @Test("the closure forms resume the task and call success on the completion queue; HEAD gets the task only")
    func closureForms() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = HTTPSessionManager(baseURL: server.baseURL, sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            manager.responseSerializer = HTTPResponseSerializer()
            let key = DispatchSpecificKey<Int>()
            let queue = DispatchQueue(label: "test.api")
            queue.setSpecific(key: key, value: 1)
            manager.completionQueue = queue
            let got = await withCheckedContinuation { (done: CheckedContinuation<(Bool, Int?, Bool)?, Never>) in
                let task = manager.get("get", parameters: ["a": 1], success: { task, object in
                    done.resume(returning: (DispatchQueue.getSpecific(key: key) == 1, task.response?.statusCode, object is Data))
                }, failure: { _, error in
                    Issue.record("GET failed: \(error)")
                    done.resume(returning: nil)
                })
                // Resumed: running, or already done on a quick server.
                #expect(task?.state == .running || task?.state == .completed)
            }
            #expect(got.map { $0 == (true, 200, true) } == true)
            let headTask = await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
                manager.head("get", success: { task in done.resume(returning: task.currentRequest.method.rawValue) },
                             failure: { _, error in
                                 Issue.record("HEAD failed: \(error)")
                                 done.resume(returning: nil)
                             })
            }
            #expect(headTask == "HEAD")
            let headResponse = try await manager.head("get")
            #expect(headResponse.statusCode == 200)
        }
    }

    @Test("a request that cannot be made returns no task and fails with no task")
    func requestThatCannotBeMade() async throws {
        let manager = HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:9/"), sessionConfiguration: ManagerTest.configuration())
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let failure = await withCheckedContinuation { (done: CheckedContinuation<(Bool, NetworkError.Code), Never>) in
            let task = manager.get("ht tp://x", success: { _, _ in Issue.record("succeeded") },
                                   failure: { task, error in done.resume(returning: (task == nil, error.code)) })
            #expect(task == nil)
        }
        #expect(failure == (true, .badURL))
        do throws(NetworkError) {
            _ = try await manager.get("mailto:someone@example.com")
            Issue.record("made a request without a host")
        } catch {
            #expect(error.code == .badURL)
        }
        do throws(NetworkError) {
            _ = try await manager.post("ok", headers: ["Bad Name": "x"])
            Issue.record("sent a header whose name is not a token")
        } catch {
            #expect(error.code == .invalidRequest)
        }
    }

    @Test("a pinning policy needs an https base URL")
    func pinningNeedsHTTPS() throws {
        let pin = try PublicKeyPin("sha256//" + String(repeating: "A", count: 43) + "=")
        var policy = SecurityPolicy(pinningMode: .publicKey)
        policy.pinnedPublicKeyHashes = [pin]
        let plain = HTTPSessionManager(baseURL: URL(string: "http://api.example.com/"))
        defer { plain.invalidateSessionCancelingTasks(true, resetSession: false) }
        do throws(NetworkError) {
            try plain.setSecurityPolicy(policy)
            Issue.record("accepted a pinning policy for http")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.reason.contains("https"))
        }
        #expect(plain.securityPolicy.pinningMode == .none)
        try plain.setSecurityPolicy(.default)
        let secure = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/"))
        defer { secure.invalidateSessionCancelingTasks(true, resetSession: false) }
        try secure.setSecurityPolicy(policy)
        #expect(secure.securityPolicy == policy)
    }
}
