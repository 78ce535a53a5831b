// SessionManager's NotificationCenter notifications (the ManagerNotifications trait):
// AFNetworking's task did resume / suspend / complete, session did invalidate, and download
// did move file / did fail to move file, each with its object and userInfo.
import FerryBase
import Ferry
import Foundation
import Synchronization
import Testing
import TestSupport

#if ManagerNotifications
@Suite("SessionManager notifications")
struct SessionManagerNotificationTests {
    /// The notifications of `names` whose object is one of `objects`, in order.
    final class Listener: Sendable {
        /// What a notification carried, in Sendable form.
        struct Seen: Sendable {
            let name: Notification.Name
            let serializedResponse: JSONValue?
            let responseData: Data?
            let hasMetrics: Bool
            let serializer: String?
            let error: NetworkError?
            let assetPath: URL?
        }

        private let seen = Recorder<[Seen]>([])
        // Written in init only, read in deinit: no other access.
        nonisolated(unsafe) private var tokens: [any NSObjectProtocol] = []

        init(_ names: [Notification.Name], accept: @escaping @Sendable (Any?) -> Bool) {
            for name in names {
                let token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [seen] note in
                    guard accept(note.object) else { return }
                    let info = note.userInfo ?? [:]
                    typealias Key = SessionManager.NotificationKey
                    let entry = Seen(name: note.name, serializedResponse: info[Key.serializedResponse] as? JSONValue,
                                     responseData: info[Key.responseData] as? Data, hasMetrics: info[Key.metrics] is TaskMetrics,
                                     serializer: info[Key.responseSerializer].map { String(describing: type(of: $0)) },
                                     error: info[Key.error] as? NetworkError, assetPath: info[Key.assetPath] as? URL)
                    seen.update { $0.append(entry) }
                }
                tokens.append(token)
            }
        }

        deinit { tokens.forEach(NotificationCenter.default.removeObserver) }

        var events: [Seen] { seen.value }
        var names: [Notification.Name] { events.map(\.name) }
    }

    static let taskNames = [SessionManager.taskDidResumeNotification, SessionManager.taskDidSuspendNotification,
                            SessionManager.taskDidCompleteNotification]

    @Test("resume, suspend, resume and complete, with the serialized response, data and metrics")
    func taskLifecycle() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let mine = Locked<ObjectIdentifier?>(nil)
            let listener = Listener(Self.taskNames) { object in
                (object as? SessionTask).map(ObjectIdentifier.init) == mine.withLock { $0 }
            }
            let done = AsyncEvent()
            let task = manager.dataTask(with: NetworkRequest(url: server.url("/get?n=1"))) { _, _, _ in done.set() }
            mine.withLock { $0 = ObjectIdentifier(task) }
            task.suspend()  // not running yet: no notification
            task.resume()   // still suspended once
            task.resume()
            #expect(await done.wait(timeout: .seconds(20)))
            #expect(await waitUntil { listener.names.contains(SessionManager.taskDidCompleteNotification) })
            #expect(listener.names == [SessionManager.taskDidResumeNotification, SessionManager.taskDidCompleteNotification])
            let info = try #require(listener.events.last)
            #expect(info.serializedResponse?["args"]?["n"] == "1")
            #expect(info.responseData?.isEmpty == false)
            #expect(info.hasMetrics)
            #expect(info.serializer == "JSONResponseSerializer")
            #expect(info.error == nil)
        }
    }

    @Test("an async call with nothing watching its body still announces its start and its end")
    func asyncCall() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let session = manager.session
            let listener = Listener(Self.taskNames) { object in (object as? SessionTask)?.session === session }
            let (object, _) = try await manager.data(for: NetworkRequest(url: server.url("/get?n=2")))
            #expect((object as? JSONValue)?["args"]?["n"] == "2")
            #expect(listener.names == [SessionManager.taskDidResumeNotification, SessionManager.taskDidCompleteNotification])
            #expect(listener.events.last?.serializedResponse?["args"]?["n"] == "2")
            #expect(listener.events.last?.hasMetrics == true)
        }
    }

    @Test("suspending a running task, then resuming it, is announced; a failure carries its error")
    func suspendAndFailure() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let mine = Locked<ObjectIdentifier?>(nil)
            let listener = Listener(Self.taskNames) { object in
                (object as? SessionTask).map(ObjectIdentifier.init) == mine.withLock { $0 }
            }
            let done = AsyncEvent()
            // Answered after a second, so the task is surely still running when it is suspended.
            let task = manager.dataTask(with: NetworkRequest(url: server.url("/drip?numbytes=1&duration=0&delay=1&code=404"))) { _, _, _ in done.set() }
            mine.withLock { $0 = ObjectIdentifier(task) }
            task.resume()
            task.suspend()
            task.resume()
            #expect(await done.wait(timeout: .seconds(20)))
            #expect(await waitUntil { listener.names.count == 4 })
            #expect(listener.names == [SessionManager.taskDidResumeNotification, SessionManager.taskDidSuspendNotification,
                                       SessionManager.taskDidResumeNotification, SessionManager.taskDidCompleteNotification])
            #expect(listener.events.last?.error?.code == .badServerResponse)
        }
    }

    @Test("a moved download and a failed move are announced; an invalidated session too")
    func downloadsAndInvalidation() async throws {
        try await HTTPBinServer.withServer { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            let session = manager.session
            let names = [SessionManager.downloadTaskDidMoveFileNotification, SessionManager.downloadTaskDidFailToMoveFileNotification,
                         SessionManager.sessionDidInvalidateNotification]
            let listener = Listener(names) { object in
                (object as? DownloadTask)?.session === session || (object as? Session) === session
            }
            let directory = try TemporaryDirectory()
            let target = directory.url.appendingPathComponent("moved.bin")
            _ = try await manager.download(for: NetworkRequest(url: server.url("/bytes/100"))) { _, _ in target }
            await #expect(throws: NetworkError.self) {
                _ = try await manager.download(for: NetworkRequest(url: server.url("/bytes/100"))) { _, _ in
                    directory.url.appendingPathComponent("missing/moved.bin")
                }
            }
            manager.invalidateSessionCancelingTasks(false, resetSession: false)
            #expect(await waitUntil { listener.names.count == 3 })
            #expect(listener.names == names)
            #expect(listener.events[0].assetPath == target)
            #expect(listener.events[1].error?.code == .cannotMoveFile)
        }
    }
}
#endif
