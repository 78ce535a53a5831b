// Bandwidth caps through the public API: the session's (shared by its tasks), a task's own,
// and a throttled body's. Every byte arrives; the durations are lower bounds only (how close
// the rate comes to its cap is the benchmark's figure, not a test's).
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session bandwidth caps")
struct SessionBandwidthTests {
    @Test("the session's download cap holds for a task without one of its own")
    func sessionDownloadCap() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.maximumDownloadBytesPerSecond = CappedTransfer.rate })
            defer { session.invalidateAndCancel() }
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/\(CappedTransfer.size)")))
            #expect(task.maximumDownloadBytesPerSecond == nil, "the task has no cap of its own")
            let ((data, response), elapsed) = try await CappedTransfer.timed { try await task.data() }
            #expect(response.statusCode == 200)
            #expect(Array(data) == TestBytes.pattern(count: CappedTransfer.size))
            #expect(elapsed >= CappedTransfer.atLeast, "\(elapsed)")
        }
    }

    @Test("a task's own download cap, and 0 or nil for none")
    func taskDownloadCap() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let task = session.dataTask(with: NetworkRequest(url: server.url("/stream-bytes/\(CappedTransfer.size)")))
            task.maximumDownloadBytesPerSecond = 0
            #expect(task.maximumDownloadBytesPerSecond == nil)
            task.maximumDownloadBytesPerSecond = CappedTransfer.rate
            #expect(task.maximumDownloadBytesPerSecond == CappedTransfer.rate)
            #expect(task.maximumUploadBytesPerSecond == nil)
            let ((data, _), elapsed) = try await CappedTransfer.timed { try await task.data() }
            #expect(Array(data) == TestBytes.pattern(count: CappedTransfer.size))
            #expect(elapsed >= CappedTransfer.atLeast, "\(elapsed)")
        }
    }

    @Test("a capped download task writes the whole file")
    func downloadTaskCap() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let task = session.downloadTask(with: NetworkRequest(url: server.url("/bytes/\(CappedTransfer.size)")))
            task.maximumDownloadBytesPerSecond = CappedTransfer.rate
            let ((location, _), elapsed) = try await CappedTransfer.timed { try await task.download() }
            defer { try? FileManager.default.removeItem(at: location) }
            #expect(try Array(Data(contentsOf: location)) == TestBytes.pattern(count: CappedTransfer.size))
            #expect(elapsed >= CappedTransfer.atLeast, "\(elapsed)")
        }
    }

    @Test("upload caps: the task's, the session's and a throttled body's", arguments: ["task", "session", "body"])
    func uploadCap(owner: String) async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                if owner == "session" { $0.maximumUploadBytesPerSecond = CappedTransfer.rate }
            })
            defer { session.invalidateAndCancel() }
            var body = RequestBody.bytes(TestBytes.pattern(count: CappedTransfer.size))
            if owner == "body" { body = body.limited(toBytesPerSecond: CappedTransfer.rate) }
            var request = NetworkRequest(url: server.url("/post"), method: .post)
            request.body = body
            let task = session.dataTask(with: request)
            if owner == "task" { task.maximumUploadBytesPerSecond = CappedTransfer.rate }
            let ((data, response), elapsed) = try await CappedTransfer.timed { try await task.data() }
            #expect(response.statusCode == 200)
            #expect(try SessionTest.json(data)["bodyLength"] as? Int == CappedTransfer.size)
            #expect(task.countOfBytesSent == Int64(CappedTransfer.size))
            #expect(elapsed >= CappedTransfer.atLeast, "\(elapsed)")
        }
    }

    @Test("the session's cap is shared: two tasks at once take as long as one task of both sizes")
    func sharedSessionCap() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.eventLoopCount = 2
                $0.maximumDownloadBytesPerSecond = CappedTransfer.rate
            })
            defer { session.invalidateAndCancel() }
            let half = CappedTransfer.size / 2
            let (results, elapsed) = try await CappedTransfer.timed {
                async let first = session.data(for: NetworkRequest(url: server.url("/bytes/\(half)")))
                async let second = session.data(for: NetworkRequest(url: server.url("/bytes/\(half)")))
                return try await [first.0, second.0]
            }
            #expect(results.allSatisfy { Array($0) == TestBytes.pattern(count: half) })
            #expect(elapsed >= CappedTransfer.atLeast, "\(elapsed)")
        }
    }

    @Test("a limit set on a task stays under the session's: the tighter one decides")
    func taskUnderSession() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.maximumDownloadBytesPerSecond = CappedTransfer.rate })
            defer { session.invalidateAndCancel() }
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/\(CappedTransfer.size)")))
            task.maximumDownloadBytesPerSecond = 1_000_000_000
            let ((data, _), elapsed) = try await CappedTransfer.timed { try await task.data() }
            #expect(data.count == CappedTransfer.size)
            #expect(elapsed >= CappedTransfer.atLeast, "a looser task cap does not lift the session's: \(elapsed)")
        }
    }
}
