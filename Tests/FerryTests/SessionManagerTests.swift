// SessionManager (AFURLSessionManager) against the in-process HTTPBin server: completion on
// the completion queue after the serializer, progress, downloads moved to their destination,
// the block setters, invalidation and cancellation.
import FerryBase
import Dispatch
import Ferry
import Foundation
import Synchronization
import Testing
import TestSupport

/// A value shared between a test and the closures it hands out.
final class Recorder<Value: Sendable>: Sendable {
    private let storage: Locked<Value>
    init(_ value: Value) { storage = Locked(value) }
    var value: Value { storage.withLock { $0 } }
    func update(_ change: (inout Value) -> Void) { storage.withLock { change(&$0) } }
}

enum ManagerTest {
    /// A configuration with one loop and storages of its own (tests run in parallel).
    static func configuration() -> SessionConfiguration {
        var configuration = SessionConfiguration()
        configuration.eventLoopCount = 1
        configuration.httpCookieStorage = CookieStorage()
        configuration.urlCredentialStorage = CredentialStorage(fileURL: nil)
        return configuration
    }

    /// A response object (a `JSONValue`, or the body as `Data`) as a Foundation JSON object.
    static func json(_ value: (any Sendable)?) throws -> [String: Any] {
        let data = try (value as? JSONValue)?.jsonData() ?? #require(value as? Data)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

@Suite("SessionManager")
struct SessionManagerTests {
    @Test("a data task's completion runs on the completion queue, in the group, after the serializer")
    func completionOnQueueAndGroup() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let key = DispatchSpecificKey<String>()
            let queue = DispatchQueue(label: "test.completion")
            queue.setSpecific(key: key, value: "completion")
            let group = DispatchGroup()
            manager.completionQueue = queue
            manager.completionGroup = group
            let seen = Recorder<(queue: String?, status: Int?, json: Bool, error: NetworkError?, inGroup: Bool)>(
                (nil, nil, false, nil, false))
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let task = manager.dataTask(with: NetworkRequest(url: server.url("/get?a=1"))) { response, object, error in
                    // JSON by default: a JSONValue, which crosses threads.
                    let argument = (object as? JSONValue)?["args"]?["a"]?.stringValue
                    // While the handler runs, the group is not empty.
                    let inGroup = group.wait(timeout: .now()) == .timedOut
                    seen.update { $0 = (DispatchQueue.getSpecific(key: key), response?.statusCode, argument == "1", error, inGroup) }
                    done.resume()
                }
                task.resume()
            }
            #expect(seen.value.inGroup)
            #expect(group.wait(timeout: .now() + 10) == .success, "the group empties after the handler")
            #expect(seen.value.queue == "completion")
            #expect(seen.value.status == 200)
            #expect(seen.value.json)
            #expect(seen.value.error == nil)
        }
    }

    @Test("a status the serializer refuses fails with the response and the body")
    func refusedStatus() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            await #expect(throws: NetworkError.self) {
                _ = try await manager.data(for: NetworkRequest(url: server.url("/status/404")))
            }
            do throws(NetworkError) {
                _ = try await manager.data(for: NetworkRequest(url: server.url("/status/418")))
            } catch {
                #expect(error.code == .badServerResponse)
                #expect(error.response?.statusCode == 418)
                #expect(error.reason.hasPrefix("Request failed: "))
            }
        }
    }

    @Test("a typed serializer's value comes back with the response, metrics and body")
    func typedSerializer() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let outcome = await withCheckedContinuation { (done: CheckedContinuation<DataResponse<Data>, Never>) in
                manager.dataTask(with: NetworkRequest(url: server.url("/bytes/3000")), serializer: HTTPResponseSerializer()) {
                    done.resume(returning: $0)
                }.resume()
            }
            #expect(outcome.value?.count == 3000)
            #expect(outcome.data?.count == 3000)
            #expect(outcome.response?.statusCode == 200)
            #expect(outcome.metrics?.transactionMetrics.count == 1)
            #expect(outcome.task?.state == .completed)
            #expect(outcome.request.url == server.url("/bytes/3000"))
        }
    }

    @Test("upload and download progress reach their handlers, ending at the totals")
    func progress() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let uploads = Recorder<[TaskProgress]>([])
            let downloads = Recorder<[TaskProgress]>([])
            let body = Data(repeating: 0x61, count: 200_000)
            var request = NetworkRequest(url: server.url("/post"), method: .post)
            request.body = .data(body)
            let (object, response) = try await manager.data(for: request, uploadProgress: { progress in uploads.update { $0.append(progress) } },
                                                            downloadProgress: { progress in downloads.update { $0.append(progress) } })
            #expect(response.statusCode == 200)
            #expect(try ManagerTest.json(object)["bodyLength"] as? Int == 200_000)
            let lastUpload = try #require(uploads.value.last)
            #expect(lastUpload.completedUnitCount == 200_000)
            #expect(lastUpload.totalUnitCount == 200_000)
            let counts = uploads.value.map(\.completedUnitCount)
            #expect(counts == counts.sorted())
            let lastDownload = try #require(downloads.value.last)
            #expect(lastDownload.isFinished)
            #expect(lastDownload.completedUnitCount == lastDownload.totalUnitCount)
            #expect(lastDownload.completedUnitCount > 100)
        }
    }

    @Test("the async uploads send memory and a file, with progress to the body's length")
    func asyncUploads() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let request = NetworkRequest(url: server.url("/put"), method: .put)
            let (fromData, _) = try await manager.upload(for: request, fromData: Data("in memory".utf8))
            #expect(try ManagerTest.json(fromData)["data"] as? String == "in memory")
            let directory = try TemporaryDirectory()
            let file = directory.url.appendingPathComponent("body.bin")
            try Data(repeating: 0x41, count: 150_000).write(to: file)
            let sent = Recorder<Int64>(0)
            let (fromFile, response) = try await manager.upload(for: request, fromFile: file) { progress in
                sent.update { $0 = progress.completedUnitCount }
            }
            #expect(response.statusCode == 200)
            #expect(try ManagerTest.json(fromFile)["bodyLength"] as? Int == 150_000)
            #expect(sent.value == 150_000)
        }
    }

    @Test("a download is moved to its destination, replacing a file there")
    func downloadMovedToDestination() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let directory = try TemporaryDirectory()
            let target = directory.url.appendingPathComponent("out.bin")
            try Data("old".utf8).write(to: target)
            let written = Recorder<Int64>(0)
            let (fileURL, response) = try await manager.download(for: NetworkRequest(url: server.url("/bytes/70000")),
                                                                 progress: { progress in written.update { $0 = progress.completedUnitCount } },
                                                                 destination: { temporary, response in
                #expect(FileManager.default.fileExists(atPath: temporary.path))
                #expect(response.statusCode == 200)
                return target
            })
            #expect(response.statusCode == 200)
            #expect(fileURL == target)
            #expect(try Data(contentsOf: target).count == 70_000)
            #expect(written.value == 70_000)
        }
    }

    @Test("the manager's finish block is asked before the task's destination, and wins, as AFURLSessionManager's")
    func managerBlockComesBeforeTheTaskDestination() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let directory = try TemporaryDirectory()
            let managerTarget = directory.url.appendingPathComponent("manager.bin")
            let taskTarget = directory.url.appendingPathComponent("task.bin")
            let askTheTask = Recorder(false)
            manager.setDownloadTaskDidFinishDownloading { _, _, _ in
                askTheTask.value ? nil : managerTarget
            }
            let (fileURL, _) = try await manager.download(for: NetworkRequest(url: server.url("/bytes/10"))) { _, _ in taskTarget }
            #expect(fileURL == managerTarget)
            #expect(FileManager.default.fileExists(atPath: managerTarget.path))
            #expect(!FileManager.default.fileExists(atPath: taskTarget.path))

            // A block that returns nil leaves the choice to the task.
            askTheTask.update { $0 = true }
            let (second, _) = try await manager.download(for: NetworkRequest(url: server.url("/bytes/10"))) { _, _ in taskTarget }
            #expect(second == taskTarget)
            #expect(try Data(contentsOf: taskTarget).count == 10)
        }
    }

    @Test("a download whose destination cannot be written fails with cannotMoveFile")
    func downloadToMissingDirectory() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let directory = try TemporaryDirectory()
            let target = directory.url.appendingPathComponent("missing/out.bin")
            do throws(NetworkError) {
                _ = try await manager.download(for: NetworkRequest(url: server.url("/bytes/10"))) { _, _ in target }
                Issue.record("moved into a missing directory")
            } catch {
                #expect(error.code == .cannotMoveFile)
                #expect(error.reason.contains("No such file or directory"))
                #expect(error.reason.contains(target.path))
            }
        }
    }

    @Test("a download the serializer refuses (404) fails; the completion handler form says so too")
    func downloadRefused() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let outcome = await withCheckedContinuation { (done: CheckedContinuation<(Int?, URL?, NetworkError.Code?), Never>) in
                manager.downloadTask(with: NetworkRequest(url: server.url("/status/404"))) { response, url, error in
                    done.resume(returning: (response?.statusCode, url, error?.code))
                }.resume()
            }
            #expect(outcome.0 == 404)
            #expect(outcome.1 == nil)
            #expect(outcome.2 == .badServerResponse)
        }
    }

    @Test("the block setters see every task's events")
    func blocks() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let events = Recorder<[String]>([])
            manager.setDataTaskDidReceiveResponse { _, _, response in
                events.update { $0.append("response \(response.statusCode)") }
                return .allow
            }
            manager.setDataTaskDidReceiveData { _, _, data in events.update { $0.append("data") } }
            manager.setTaskWillPerformHTTPRedirection { _, _, response, request in
                events.update { $0.append("redirect \(response.statusCode)") }
                return request
            }
            manager.setTaskDidFinishCollectingMetrics { _, _, metrics in
                events.update { $0.append("metrics \(metrics.redirectCount)") }
            }
            manager.setTaskDidComplete { _, _, error in events.update { $0.append("complete \(error == nil)") } }
            let (_, response) = try await manager.data(for: NetworkRequest(url: server.url("/redirect/1")))
            #expect(response.statusCode == 200)
            let seen = events.value
            #expect(seen.first == "redirect 302")
            #expect(seen.contains("response 200"))
            #expect(seen.contains("data"))
            #expect(seen.suffix(2) == ["metrics 1", "complete true"])
        }
    }

    @Test("a redirection block that answers nil makes the 3xx the response")
    func redirectionRefused() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            manager.setTaskWillPerformHTTPRedirection { _, _, _, _ in nil }
            var serializer = HTTPResponseSerializer()
            serializer.acceptableStatusCodes = nil
            let (_, response) = try await manager.data(for: NetworkRequest(url: server.url("/redirect/1")), serializer: serializer)
            #expect(response.statusCode == 302)
        }
    }

    @Test("invalidating cancels running tasks, tells the block, and a reset session runs new ones")
    func invalidateAndReset() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let invalidated = Recorder<Int>(0)
            manager.setSessionDidBecomeInvalid { _, _ in invalidated.update { $0 += 1 } }
            let first = manager.session
            let failed = await withCheckedContinuation { (done: CheckedContinuation<NetworkError?, Never>) in
                let task = manager.dataTask(with: NetworkRequest(url: server.url("/delay/10"))) { _, _, error in
                    done.resume(returning: error)
                }
                task.resume()
                #expect(manager.dataTasks.map(\.taskIdentifier) == [task.taskIdentifier])
                #expect(manager.tasks.count == 1)
                #expect(manager.uploadTasks.isEmpty && manager.downloadTasks.isEmpty)
                manager.invalidateSessionCancelingTasks(true, resetSession: true)
            }
            #expect(failed?.code == .cancelled)
            #expect(manager.session !== first)
            let (_, response) = try await manager.data(for: NetworkRequest(url: server.url("/get")))
            #expect(response.statusCode == 200)
            await first.flush()
            #expect(invalidated.value == 1)
        }
    }

    @Test("cancelling the awaiting Swift task cancels the manager's task")
    func asyncCancellation() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let call = Task { try await manager.data(for: NetworkRequest(url: server.url("/delay/10"))) }
            #expect(await waitUntil { !manager.tasks.isEmpty })
            call.cancel()
            await #expect(throws: NetworkError.self) { _ = try await call.value }
            do {
                _ = try await call.value
            } catch let error as NetworkError {
                #expect(error.code == .cancelled)
            }
        }
    }
}
