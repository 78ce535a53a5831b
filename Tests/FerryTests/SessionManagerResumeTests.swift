// SessionManager's resumable downloads (AFNetworking's downloadTaskWithResumeData: and
// setDownloadTaskDidResumeBlock:): a download cut by a reset hands resume data in its error,
// and the manager continues it into the destination, byte for byte.
import Ferry
import Foundation
import Testing
import TestSupport

@Suite("SessionManager resumable downloads")
struct SessionManagerResumeTests {
    static let size = 90_000
    static let source = TestBytes.pattern(count: size)

    /// Connection 0: a 200 cut after `offset` bytes (once the client has them); connection 1:
    /// the rest as a 206.
    static func scripts(cutAt offset: Int, received: AsyncEvent) -> [ConnectionScript] {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nETag: \"m1\"\r\n\r\n"
        let rest = "HTTP/1.1 206 Partial Content\r\nContent-Length: \(size - offset)\r\n"
            + "Content-Range: bytes \(offset)-\(size - 1)/\(size)\r\nETag: \"m1\"\r\n\r\n"
        return [
            ConnectionScript([.readRequest, .send(head), .send(Array(source[..<offset])), .waitUntil { received.isSet }, .reset]),
            ConnectionScript([.readRequest, .send(rest), .send(Array(source[offset...])), .close]),
        ]
    }

    /// Runs the first download to its cut and returns the resume data its error carries.
    static func cutDownload(_ manager: SessionManager, url: URL, offset: Int, received: AsyncEvent) async throws -> Data {
        let failure = Recorder<NetworkError?>(nil)
        let done = AsyncEvent()
        let task = manager.downloadTask(with: NetworkRequest(url: url)) { _, _, error in
            failure.update { $0 = error }
            done.set()
        }
        task.resume()
        #expect(await waitUntil { task.countOfBytesReceived == Int64(offset) })
        received.set()
        #expect(await done.wait(timeout: .seconds(30)))
        let error = try #require(failure.value)
        #expect(error.code == .networkConnectionLost)
        return try #require(error.downloadTaskResumeData)
    }

    @Test("the completion-handler form: the resume block hears the offset, the file reaches its destination whole")
    func continuedIntoTheDestination() async throws {
        let received = AsyncEvent()
        try await ScriptedServer.withServer(scripts: Self.scripts(cutAt: 30_000, received: received)) { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let resumeData = try await Self.cutDownload(manager, url: server.url("/file"), offset: 30_000, received: received)
            let resumed = Recorder<[Int64]>([])
            manager.setDownloadTaskDidResume { _, _, offset, expected in
                #expect(expected == Int64(Self.size))
                resumed.update { $0.append(offset) }
            }
            let directory = try TemporaryDirectory()
            let target = directory.url.appendingPathComponent("resumed.bin")
            let done = AsyncEvent()
            let outcome = Recorder<(NetworkResponse?, URL?, NetworkError?)>((nil, nil, nil))
            let task = manager.downloadTask(withResumeData: resumeData, destination: { _, _ in target }) { response, url, error in
                outcome.update { $0 = (response, url, error) }
                done.set()
            }
            task.resume()
            #expect(await done.wait(timeout: .seconds(30)))
            let (response, url, error) = outcome.value
            #expect(error == nil)
            #expect(response?.statusCode == 206)
            #expect(url == target)
            #expect(try Data(contentsOf: target) == Data(Self.source))
            #expect(resumed.value == [30_000])
        }
    }

    @Test("the async form, with progress that starts from the bytes on disk")
    func continuedAsync() async throws {
        let received = AsyncEvent()
        try await ScriptedServer.withServer(scripts: Self.scripts(cutAt: 12_000, received: received)) { server in
            let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
            defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
            let resumeData = try await Self.cutDownload(manager, url: server.url("/file"), offset: 12_000, received: received)
            let directory = try TemporaryDirectory()
            let target = directory.url.appendingPathComponent("async.bin")
            let progress = Recorder<[Int64]>([])
            let (fileURL, response) = try await manager.download(
                resumeFrom: resumeData, progress: { value in progress.update { $0.append(value.completedUnitCount) } },
                destination: { _, _ in target })
            #expect(response.statusCode == 206)
            #expect(fileURL == target)
            #expect(try Data(contentsOf: target) == Data(Self.source))
            #expect(progress.value.first == 12_000)
            #expect(progress.value.last == Int64(Self.size))
        }
    }

    @Test("resume data that is not resume data fails with cannotResumeDownload")
    func corruptResumeData() async throws {
        let manager = SessionManager(sessionConfiguration: ManagerTest.configuration())
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        do {
            _ = try await manager.download(resumeFrom: Data("{}".utf8)) { url, _ in url }
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .cannotResumeDownload)
        }
    }
}
