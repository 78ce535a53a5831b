// HTTPSessionManager's typed forms (Decodable, any serializer) and its multipart POST, live
// against the in-process HTTPBin server.
import Ferry
import Foundation
import Testing
import TestSupport

@Suite("HTTPSessionManager: Decodable and multipart")
struct HTTPSessionManagerTypedTests {
    /// The part of HTTPBin's echo document these tests read.
    struct Echo: Decodable, Sendable {
        let method: String
        let args: [String: String]
        let headers: [String: String]
        let data: String
        let bodyLength: Int
    }

    static func manager(_ server: HTTPBinServer) -> HTTPSessionManager {
        HTTPSessionManager(baseURL: server.baseURL, sessionConfiguration: ManagerTest.configuration())
    }

    @Test("a GET decodes into a Decodable type; a body of another shape fails naming the path")
    func decodable() async throws {
        try await HTTPBinServer.withServer { server in
            let api = Self.manager(server)
            defer { api.invalidateSessionCancelingTasks(true, resetSession: false) }
            let echo = try await api.get("get", parameters: ["id": 7], as: Echo.self)
            #expect(echo.method == "GET")
            #expect(echo.args == ["id": "7"])
            struct Wrong: Decodable, Sendable { let method: Int }
            do throws(NetworkError) {
                _ = try await api.get("get", as: Wrong.self)
                Issue.record("decoded a string as a number")
            } catch {
                #expect(error.code == .cannotDecodeContentData)
                #expect(error.reason.contains("method"))
                #expect(error.response?.statusCode == 200)
            }
            let posted = try await api.post("post", parameters: ["a": "b"], as: Echo.self)
            #expect(posted.data == "a=b")
            let direct = try await api.data(for: NetworkRequest(url: server.url("/put"), method: .put), as: Echo.self)
            #expect(direct.method == "PUT")
        }
    }

    @Test("any serializer: the typed value and the response")
    func typedSerializer() async throws {
        try await HTTPBinServer.withServer { server in
            let api = Self.manager(server)
            defer { api.invalidateSessionCancelingTasks(true, resetSession: false) }
            let (json, response) = try await api.data(withHTTPMethod: .get, urlString: "get", parameters: ["q": "x"],
                                                      serializer: JSONResponseSerializer())
            #expect(response.statusCode == 200)
            #expect(json?["args"]?["q"]?.stringValue == "x")
        }
    }

    @Test("a multipart POST streams fields and a file, with upload progress to the exact length")
    func multipartPost() async throws {
        try await HTTPBinServer.withServer { server in
            let api = Self.manager(server)
            defer { api.invalidateSessionCancelingTasks(true, resetSession: false) }
            let directory = try TemporaryDirectory()
            let file = directory.url.appendingPathComponent("notes.txt")
            try Data("hello, multipart\n".utf8).write(to: file)
            let sent = Recorder<Int64>(0)
            let echo = try await Self.postForm(api, file: file) { progress in sent.update { $0 = progress.completedUnitCount } }
            #expect(echo.method == "POST")
            let contentType = try #require(echo.headers["Content-Type"])
            #expect(contentType.hasPrefix("multipart/form-data; boundary="))
            #expect(echo.headers["Content-Length"] == String(echo.bodyLength))
            #expect(sent.value == Int64(echo.bodyLength))
            #expect(echo.data.contains("Content-Disposition: form-data; name=\"user[name]\"\r\n\r\nAda\r\n"))
            #expect(echo.data.contains("Content-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\n"
                + "Content-Type: text/plain\r\n\r\nhello, multipart\n\r\n"))
            #expect(echo.data.range(of: "user[name]")!.lowerBound < echo.data.range(of: "notes.txt")!.lowerBound)
        }
    }

    @Test("a multipart body is sent again, whole, after a 307 redirect")
    func multipartAfterRedirect() async throws {
        try await HTTPBinServer.withServer { server in
            let api = Self.manager(server)
            defer { api.invalidateSessionCancelingTasks(true, resetSession: false) }
            let directory = try TemporaryDirectory()
            let file = directory.url.appendingPathComponent("data.bin")
            try Data(repeating: 0x5A, count: 100_000).write(to: file)
            let (object, response) = try await api.post("redirect-to?url=/post&status_code=307", parameters: ["k": "v"],
                                                        constructingBodyWith: { form throws(NetworkError) in
                try form.appendPart(fileURL: file, name: "blob")
            })
            #expect(response.statusCode == 200)
            #expect(response.url.path == "/post")
            let echo = try #require(object as? JSONValue)
            let length = try #require(echo["bodyLength"]?.intValue)
            #expect(length > 100_000)
            #expect(echo["headers"]?["Content-Length"]?.stringValue == String(length))
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test("a throttled form (AFNetworking's packet size and delay) is paced by the connection, and arrives whole")
    func throttledMultipart() async throws {
        try await HTTPBinServer.withServer { server in
            let api = Self.manager(server)
            defer { api.invalidateSessionCancelingTasks(true, resetSession: false) }
            let clock = ContinuousClock()
            let start = clock.now
            // 4,000 bytes per 0.1 s is 40 kB/s: 60 kB take at least 1.4 s after the 4 kB burst.
            let (object, response) = try await api.post("post", constructingBodyWith: { form throws(NetworkError) in
                try form.appendPart(fileData: [UInt8](repeating: 0x5A, count: 60_000), name: "blob", fileName: "b.bin",
                                mimeType: "application/octet-stream")
                form.throttleBandwidth(packetSize: 4_000, delay: .milliseconds(100))
            })
            let elapsed = clock.now - start
            #expect(response.statusCode == 200)
            let length = try #require((object as? JSONValue)?["bodyLength"]?.intValue)
            #expect(length > 60_000)
            #expect(elapsed >= .milliseconds(1_200), "\(elapsed)")
        }
    }

    @Test("a file part that changed size before it was sent fails the upload, naming the file; a removed one too")
    func fileChangedBeforeSending() async throws {
        try await HTTPBinServer.withServer { server in
            let api = Self.manager(server)
            defer { api.invalidateSessionCancelingTasks(true, resetSession: false) }
            let directory = try TemporaryDirectory()
            let file = directory.url.appendingPathComponent("grows.txt")
            try Data("short".utf8).write(to: file)
            var request = try api.requestSerializer.multipartFormRequest(url: server.url("/post")) { form throws(NetworkError) in
                try form.appendPart(fileURL: file, name: "f")
            }
            try Data("much longer now".utf8).write(to: file)
            do throws(NetworkError) {
                _ = try await api.data(for: request)
                Issue.record("sent a file whose size changed")
            } catch {
                #expect(error.code == .requestBodyFailed)
                #expect(error.reason.contains("grows.txt is 15 bytes now, not the 5"))
            }
            request = try api.requestSerializer.multipartFormRequest(url: server.url("/post")) { form throws(NetworkError) in
                try form.appendPart(fileURL: file, name: "f")
            }
            try FileManager.default.removeItem(at: file)
            do throws(NetworkError) {
                _ = try await api.data(for: request)
                Issue.record("sent a file that is gone")
            } catch {
                #expect(error.code == .cannotOpenFile)
                #expect(error.reason.contains("grows.txt"))
            }
        }
    }

    @Test("a part whose file is missing makes no task and fails, naming the file")
    func missingFile() async throws {
        let api = HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:9/"), sessionConfiguration: ManagerTest.configuration())
        defer { api.invalidateSessionCancelingTasks(true, resetSession: false) }
        let failure = await withCheckedContinuation { (done: CheckedContinuation<(Bool, NetworkError), Never>) in
            let task = api.post("upload", constructingBodyWith: { form throws(NetworkError) in
                try form.appendPart(fileURL: URL(fileURLWithPath: "/nonexistent/ferry.txt"), name: "f")
            }, success: { _, _ in Issue.record("succeeded") }, failure: { task, error in done.resume(returning: (task == nil, error)) })
            #expect(task == nil)
        }
        #expect(failure.0)
        #expect(failure.1.code == .cannotOpenFile)
        #expect(failure.1.reason.contains("/nonexistent/ferry.txt"))
    }

    static func postForm(_ api: HTTPSessionManager, file: URL,
                         progress: @escaping SessionManager.ProgressHandler) async throws -> Echo {
        let echo = await withCheckedContinuation { (done: CheckedContinuation<Echo?, Never>) in
            api.post("post", parameters: ["user": ["name": "Ada"]], constructingBodyWith: { form throws(NetworkError) in
                try form.appendPart(fileURL: file, name: "file")
            }, progress: progress, success: { _, object in
                let echo = (object as? JSONValue).flatMap { try? $0.decode(Echo.self) }
                done.resume(returning: echo)
            }, failure: { _, error in
                Issue.record("multipart POST failed: \(error)")
                done.resume(returning: nil)
            })
        }
        return try #require(echo, "the multipart POST's echo")
    }
}
