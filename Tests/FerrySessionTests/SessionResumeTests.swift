#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import Foundation
import HTTPTypes
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

/// Downloads that go on where they stopped (issue 19): a download cut at several offsets (a
/// reset connection, a cancel, a timeout) is continued from its resume data into a file equal
/// to the source byte for byte; a server that ignores ranges, a resource that changed, a 416
/// for a complete file, and resume data that cannot be used each end as URLSession's would.
@Suite("Resumable downloads")
struct SessionResumeTests {
    static let size = 200_000
    static let source = TestBytes.pattern(count: size)
    static let etag = "\"v1\""

    /// How a first attempt is cut after `offset` body bytes.
    enum Cut: String, CaseIterable, Sendable {
        case reset, cancel, timeout
    }

    /// A 200 head for the whole source, with a validator.
    static func fullHead(etag: String = etag, extra: String = "") -> String {
        "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nETag: \(etag)\r\nAccept-Ranges: bytes\r\n\(extra)\r\n"
    }

    /// The first attempt: the head and `offset` bytes, then the cut. A reset waits for
    /// `received` (the client has read every byte: a reset drops what it has not read yet).
    static func firstAttempt(cutAt offset: Int, by cut: Cut, received: AsyncEvent) -> ConnectionScript {
        var steps: [ScriptStep] = [.readRequest, .send(fullHead()), .send(Array(source[..<offset]))]
        switch cut {
        case .reset: steps += [.waitUntil { received.isSet }, .reset]
        case .cancel, .timeout: steps.append(.stallUntilClosed(limit: .seconds(30)))
        }
        return ConnectionScript(steps)
    }

    /// A 206 carrying the source from `offset`.
    static func partial(from offset: Int) -> ConnectionScript {
        let head = "HTTP/1.1 206 Partial Content\r\nContent-Length: \(size - offset)\r\n"
            + "Content-Range: bytes \(offset)-\(size - 1)/\(size)\r\nETag: \(etag)\r\n\r\n"
        return ConnectionScript([.readRequest, .send(head), .send(Array(source[offset...])), .close])
    }

    /// Runs the first attempt to its cut and returns the resume data it produced.
    static func interruptedDownload(_ session: Session, url: URL, cut: Cut, at offset: Int, received: AsyncEvent) async throws -> Data {
        var request = NetworkRequest(url: url)
        request.headerFields[.authorization] = "Bearer kept"
        if cut == .timeout { request.timeoutInterval = .seconds(1) }
        let task = session.downloadTask(with: request)
        let failure = Locked<NetworkError?>(nil)
        let done = AsyncEvent()
        _ = task.attachCompletion(.handler { outcome in
            failure.withLock { $0 = outcome.failureValue }
            done.set()
        })
        task.resume()
        #expect(await waitUntil { task.countOfBytesReceived == Int64(offset) })
        received.set()
        switch cut {
        case .cancel:
            let data = await task.cancelByProducingResumeData()
            #expect(await done.wait(timeout: .seconds(30)))
            let error = try #require(failure.withLock { $0 })
            #expect(error.code == .cancelled)
            #expect(error.downloadTaskResumeData == data, "the error carries the same data")
            return try #require(data)
        case .reset, .timeout:
            #expect(await done.wait(timeout: .seconds(30)))
            let error = try #require(failure.withLock { $0 })
            #expect(error.code == (cut == .reset ? .networkConnectionLost : .timedOut), "\(error)")
            return try #require(error.downloadTaskResumeData, "\(error)")
        }
    }

    @Test("cut by a reset, a cancel or a timeout at several offsets, continued byte for byte",
          arguments: Cut.allCases, [1, 4_096, 65_543, 199_999])
    func continuedByteForByte(cut: Cut, offset: Int) async throws {
        try await Self.afterCut(at: offset, by: cut, then: [Self.partial(from: offset)]) { session, server, resumeData in

            let delegate = ResumeRecorder()
            let (location, response) = try await session.download(resumeFrom: resumeData, delegate: delegate)
            defer { try? FileManager.default.removeItem(at: location) }
            #expect(response.statusCode == 206)
            #expect(try Data(contentsOf: location) == Data(Self.source))
            #expect(delegate.resumes == [ResumeRecorder.Resume(offset: Int64(offset), expected: Int64(Self.size))])
            #expect(delegate.lastTotalWritten == Int64(Self.size), "didWriteData's totals count the bytes on disk")

            let second = try #require(server.receivedRequestHeads(connection: 1).first)
            #expect(second.value(of: "Range") == "bytes=\(offset)-")
            #expect(second.value(of: "If-Range") == Self.etag)
            #expect(second.value(of: "Authorization") == "Bearer kept", "the request's own fields are sent again")
            #expect(second.value(of: "Accept-Encoding") == "identity")
        }
    }

    @Test func aTaskMadeFromResumeDataCountsTheBytesOnDisk() async throws {
        let offset = 50_000
        try await Self.afterCut(at: offset, by: .reset, then: [Self.partial(from: offset)]) { session, server, resumeData in
            let finished = AsyncEvent()
            let result = Locked<(Data?, Int?)>((nil, nil))
            let task = session.downloadTask(withResumeData: resumeData) { location, response, error in
                result.withLock { $0 = (location.flatMap { try? Data(contentsOf: $0) }, response?.statusCode) }
                finished.set()
            }
            #expect(task.originalRequest.headerFields[.range] == "bytes=\(offset)-")
            task.resume()
            #expect(await finished.wait(timeout: .seconds(30)))
            #expect(result.withLock { $0.0 } == Data(Self.source))
            #expect(task.countOfBytesReceived == Int64(Self.size))
            #expect(task.countOfBytesExpectedToReceive == Int64(Self.size))
            #expect(task.progress.fractionCompleted == 1)
        }
    }

    @Test("a server that ignores the range (200) starts the file over, and says so with offset 0")
    func aServerIgnoringRangesRestarts() async throws {
        let offset = 10_000
        let whole = ConnectionScript([.readRequest, .send(Self.fullHead()), .send(Self.source), .close])
        try await Self.afterCut(at: offset, by: .reset, then: [whole]) { session, server, resumeData in
            let delegate = ResumeRecorder()
            let (location, response) = try await session.download(resumeFrom: resumeData, delegate: delegate)
            defer { try? FileManager.default.removeItem(at: location) }
            #expect(response.statusCode == 200)
            #expect(try Data(contentsOf: location) == Data(Self.source))
            #expect(delegate.resumes == [ResumeRecorder.Resume(offset: 0, expected: Int64(Self.size))])
        }
    }

    @Test("a resource whose ETag changed is loaded again from byte 0 (If-Range)")
    func aChangedResourceRestarts() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            // What an earlier version of /range/N left on disk: other bytes, another ETag.
            let (resumeData, partial) = try Self.partialDownload(
                [UInt8](repeating: 7, count: 5_000), of: server.url("/range/30000"),
                validator: .entityTag("\"an-older-version\""), expectedLength: 30_000, name: "changed")
            defer { try? FileManager.default.removeItem(at: partial) }
            let delegate = ResumeRecorder()
            let (location, response) = try await session.download(resumeFrom: resumeData, delegate: delegate)
            #expect(response.statusCode == 200)
            #expect(location.path == partial.path)
            #expect(try Data(contentsOf: location) == Data(TestBytes.pattern(count: 30_000)))
            #expect(delegate.resumes.map(\.offset) == [0])
        }
    }

    @Test("a server that honours ranges: the rest is appended to the partial file")
    func honouredRangeAgainstHTTPBin() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let (resumeData, partial) = try Self.partialDownload(
                TestBytes.pattern(count: 12_345), of: server.url("/range/100000"),
                validator: .lastModified("Thu, 01 Jan 2026 00:00:00 GMT"), expectedLength: 100_000, name: "honoured")
            defer { try? FileManager.default.removeItem(at: partial) }
            let (location, response) = try await session.download(resumeFrom: resumeData)
            #expect(response.statusCode == 206)
            #expect(try Data(contentsOf: location) == Data(TestBytes.pattern(count: 100_000)))
        }
    }

    @Test("a 416 naming the length on disk completes the download with nothing transferred")
    func alreadyComplete() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let (resumeData, partial) = try Self.partialDownload(
                TestBytes.pattern(count: 4_000), of: server.url("/range/4000"),
                validator: .entityTag("\"range-4000\""), expectedLength: 4_000, name: "complete")
            defer { try? FileManager.default.removeItem(at: partial) }
            let delegate = ResumeRecorder()
            let (location, response) = try await session.download(resumeFrom: resumeData, delegate: delegate)
            #expect(response.statusCode == 416)
            #expect(try Data(contentsOf: location) == Data(TestBytes.pattern(count: 4_000)))
            #expect(delegate.resumes == [ResumeRecorder.Resume(offset: 4_000, expected: 4_000)])
        }
    }

    @Test("a 206 that does not start where the file stops fails, and the partial file goes")
    func aMisplacedPartIsRefused() async throws {
        let wrong = ConnectionScript.reply(
            "HTTP/1.1 206 Partial Content\r\nContent-Length: 10\r\nContent-Range: bytes 0-9/\(Self.size)\r\n\r\n0123456789")
        try await Self.afterCut(at: 1_000, by: .reset, then: [wrong]) { session, server, resumeData in
            let partial = try DownloadResumeData.decode(resumeData).partialFilePath
            let error = await networkError { try await session.download(resumeFrom: resumeData) }
            #expect(error?.code == .cannotResumeDownload)
            #expect(error?.reason.contains("starts at byte 0, not at 1000") == true, "\(String(describing: error))")
            #expect(error?.response?.statusCode == 206)
            #expect(error?.downloadTaskResumeData == nil)
            #expect(!FileManager.default.fileExists(atPath: partial))
        }
    }

    @Test("a 503 to the range request keeps the partial file and hands the resume data back")
    func anUnavailableServerKeepsTheResumeData() async throws {
        let unavailable = ConnectionScript.reply("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy")
        try await Self.afterCut(at: 2_000, by: .reset, then: [unavailable, Self.partial(from: 2_000)]) { session, server, resumeData in
            let error = await networkError { try await session.download(resumeFrom: resumeData) }
            #expect(error?.code == .cannotResumeDownload)
            #expect(error?.response?.statusCode == 503)
            let again = try #require(error?.downloadTaskResumeData)
            let (location, _) = try await session.download(resumeFrom: again)
            defer { try? FileManager.default.removeItem(at: location) }
            #expect(try Data(contentsOf: location) == Data(Self.source))
        }
    }

    @Test("a plain cancel produces no resume data and removes the partial file")
    func aPlainCancelRemovesThePartialFile() async throws {
        let received = AsyncEvent()
        try await ScriptedServer.withServer(scripts: [Self.firstAttempt(cutAt: 3_000, by: .cancel, received: received)]) { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let directory = try TemporaryDirectory()
            let destination = directory.url.appendingPathComponent("plain-cancel")
            let task = Task { try await session.download(for: NetworkRequest(url: server.url("/file")), to: destination) }
            // The body goes to a partial file beside the destination until it is complete.
            let partial = { (try? FileManager.default.contentsOfDirectory(atPath: directory.url.path))?.first }
            #expect(await waitUntil { partial().map { SessionTest.fileSize(directory.url.appendingPathComponent($0)) } == 3_000 })
            task.cancel()
            let error = await networkError { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(error?.downloadTaskResumeData == nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty, "no destination, no partial file")
        }
    }

    @Test("no resume data without a validator, or for a decoded body")
    func notResumable() async throws {
        let noValidator = ConnectionScript([.readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"),
                                            .send(Array(Self.source[..<40])), .reset])
        let gzip = Zlib.compress(Self.source, format: .gzip)
        let decoded = ConnectionScript([
            .readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: \(gzip.count)\r\nContent-Encoding: gzip\r\nETag: \"g\"\r\n\r\n"),
            .send(Array(gzip[..<(gzip.count / 2)])), .reset,
        ])
        try await ScriptedServer.withServer(scripts: [noValidator, decoded]) { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            for _ in 0..<2 {
                let error = await Self.failure(of: session.downloadTask(with: NetworkRequest(url: server.url("/file"))))
                #expect(error?.code == .networkConnectionLost)
                #expect(error?.downloadTaskResumeData == nil)
            }
        }
    }

    /// Writes `bytes` to a new partial file, named as Ferry names its temporary downloads, and
    /// returns resume data that continues it from `url` (the test removes it).
    static func partialDownload(_ bytes: [UInt8], of url: URL, validator: DownloadResumeData.Validator,
                                expectedLength: Int64?, name: String) throws -> (Data, URL) {
        let partial = temporaryDownloadURL(name)
        try Data(bytes).write(to: partial)
        let data = DownloadResumeData(url: url, headerFields: [], validator: validator, bytesOnDisk: Int64(bytes.count),
                                      partialFilePath: partial.path, expectedLength: expectedLength, isTemporary: true).encoded()
        return (data, partial)
    }

    /// A new path where resume data may name a partial file: `ferry-download-…` in Ferry's
    /// temporary directory.
    static func temporaryDownloadURL(_ name: String) -> URL {
        URL(fileURLWithPath: DownloadFile.temporaryDirectory).appendingPathComponent("ferry-download-it-\(UUID().uuidString)-\(name)")
    }

    /// Runs a first download on a scripted server (connection 0) to its cut at `offset`, then
    /// `body` with the session, the server (whose later connections run `scripts`) and the
    /// resume data the cut produced.
    static func afterCut(at offset: Int, by cut: Cut, then scripts: [ConnectionScript],
                         _ body: (Session, ScriptedServer, Data) async throws -> Void) async throws {
        let received = AsyncEvent()
        try await ScriptedServer.withServer(scripts: [firstAttempt(cutAt: offset, by: cut, received: received)] + scripts) { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let resumeData = try await interruptedDownload(session, url: server.url("/file"), cut: cut, at: offset, received: received)
            try await body(session, server, resumeData)
        }
    }

    /// Resumes `task` and returns its error (nil when it succeeded).
    static func failure(of task: DownloadTask, afterResuming: () async -> Void = {}) async -> NetworkError? {
        let failure = Locked<NetworkError?>(nil)
        let done = AsyncEvent()
        _ = task.attachCompletion(.handler { outcome in
            failure.withLock { $0 = outcome.failureValue }
            done.set()
        })
        task.resume()
        await afterResuming()
        #expect(await done.wait(timeout: .seconds(30)))
        return failure.withLock { $0 }
    }

    @Test("a continued download that fails before its answer keeps the file and hands new resume data")
    func failingBeforeTheAnswerKeepsTheFile() async throws {
        let closed = try RefusingPort()
        let (resumeData, partial) = try Self.partialDownload(
            TestBytes.pattern(count: 900), of: URL(string: "http://127.0.0.1:\(closed.port)/file")!,
            validator: .entityTag("\"v\""), expectedLength: 2_000, name: "unreachable")
        defer { try? FileManager.default.removeItem(at: partial) }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let error = await Self.failure(of: session.downloadTask(withResumeData: resumeData))
        #expect(error?.code == .cannotConnectToHost)
        let again = try DownloadResumeData.decode(try #require(error?.downloadTaskResumeData))
        #expect(again.bytesOnDisk == 900 && again.partialFilePath == partial.path)
        #expect(SessionTest.fileSize(partial) == 900)
    }

    @Test("a 401 to the range request is judged, not appended: the file stays, with its resume data")
    func aChallengeIsNotAppended() async throws {
        let challenge = ConnectionScript.reply(
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 6\r\n\r\ndenied")
        try await Self.afterCut(at: 5_000, by: .reset, then: [challenge]) { session, server, resumeData in
            let partial = try DownloadResumeData.decode(resumeData).partialFilePath
            defer { unlink(partial) }
            let error = await Self.failure(of: session.downloadTask(withResumeData: resumeData))
            #expect(error?.code == .cannotResumeDownload)
            #expect(error?.response?.statusCode == 401)
            #expect(error?.downloadTaskResumeData != nil)
            #expect(try Data(contentsOf: URL(fileURLWithPath: partial)) == Data(Self.source[..<5_000]))
        }
    }

    @Test("a body the caller asked a range of is not resumable: its bytes are not the resource's first")
    func aCallersRangeIsNotResumable() async throws {
        let part = ConnectionScript([
            .readRequest, .send("HTTP/1.1 206 Partial Content\r\nContent-Length: 1000\r\nContent-Range: bytes 500-1499/5000\r\nETag: \"r\"\r\n\r\n"),
            .send(Array(Self.source[500..<800])), .reset,
        ])
        try await ScriptedServer.withServer(scripts: [part]) { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/file"))
            request.headerFields[.range] = "bytes=500-1499"
            let error = await Self.failure(of: session.downloadTask(with: request))
            #expect(error?.code == .networkConnectionLost)
            #expect(error?.downloadTaskResumeData == nil)
        }
    }

    @Test("two cancel(byProducingResumeData:) calls both return: the data, or nil once the task has completed")
    func twoCancelsBothHear() async throws {
        let received = AsyncEvent()
        try await ScriptedServer.withServer(scripts: [Self.firstAttempt(cutAt: 700, by: .cancel, received: received)]) { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let task = session.downloadTask(with: NetworkRequest(url: server.url("/file")))
            task.resume()
            #expect(await waitUntil { task.countOfBytesReceived == 700 })
            async let first = task.cancelByProducingResumeData()
            async let second = task.cancelByProducingResumeData()
            let (one, two) = await (first, second)
            // The second call may come after the first's cancel completed the task: nil then.
            #expect(one != nil || two != nil)
            #expect(one == nil || two == nil || one == two)
            if let data = one ?? two { unlink(try DownloadResumeData.decode(data).partialFilePath) }
        }
    }

    @Test("cancel(byProducingResumeData:) on a completed task hands nil")
    func cancellingACompletedTask() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let task = session.downloadTask(with: NetworkRequest(url: server.url("/bytes/10"))) { _, _, _ in }
            task.resume()
            #expect(await waitUntil { task.state == .completed })
            #expect(await task.cancelByProducingResumeData() == nil)
        }
    }
}

/// A download delegate that records where continued downloads resumed and the last total.
final class ResumeRecorder: SessionDownloadDelegate, @unchecked Sendable {
    struct Resume: Equatable {
        var offset: Int64
        var expected: Int64?
    }

    private let state = Locked<([Resume], Int64)>(([], 0))
    var resumes: [Resume] { state.withLock { $0.0 } }
    var lastTotalWritten: Int64 { state.withLock { $0.1 } }

    func session(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) {
        state.withLock { $0.0.append(Resume(offset: fileOffset, expected: expectedTotalBytes)) }
    }

    func session(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
                 totalBytesExpectedToWrite: Int64?) {
        state.withLock { $0.1 = totalBytesWritten }
    }

    func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {}
}
