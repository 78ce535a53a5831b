import Foundation
import Testing
import TestSupport

@testable import FerrySession

/// Only a part of the same version is joined to the bytes on disk (RFC 9110 §15.3.7.3): a
/// server or proxy that ignores If-Range shows it by naming another version or another length,
/// and a part that ends early must not pass for the whole file. Each answer of another version
/// fails the continued download, and its partial file goes; a part that ends early stops it
/// part way, with resume data. An answer refused at its head fails the task
/// there: its body (here, one that never comes) is not awaited. Bytes on disk that no answer
/// touched (a task cancelled before it started) keep their resume data.
@Suite("Resumed downloads join only the same version")
struct SessionResumeVersionTests {
    static let size = SessionResumeTests.size
    static let cut = 1_000

    static func partHead(_ fields: String) -> String {
        "HTTP/1.1 206 Partial Content\r\n\(fields)\r\n"
    }

    @Test("an answer that does not continue the bytes on disk is refused, with the reason", arguments: [
        (partHead("Content-Length: \(size - cut)\r\nContent-Range: bytes \(cut)-\(size - 1)/\(size)\r\nETag: \"v2\"\r\n"),
         "the 206 is of version \"v2\", the bytes on disk of \"v1\""),
        (partHead("Content-Length: \(300_000 - cut)\r\nContent-Range: bytes \(cut)-299999/300000\r\nETag: \"v1\"\r\n"),
         "the 206 says the resource has 300000 bytes, but the download began with \(size)"),
        (partHead("Content-Length: 30\r\nContent-Range: bytes \(cut)-\(size - 1)/\(size)\r\nETag: \"v1\"\r\n"),
         "206 for bytes \(cut)-\(size - 1) carries 30 bytes"),
        ("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Length: 0\r\nContent-Range: bytes */\(cut)\r\n\r\n",
         "416: the resource has \(cut) bytes, but the download began with \(size)"),
    ])
    func refused(answer: String, words: String) async throws {
        // After the head, nothing until the client closes: a task that waited for the body
        // would fail only at its 60 s request timeout.
        let reply = ConnectionScript([.readRequest, .send(answer), .stallUntilClosed(limit: .seconds(120))])
        try await SessionResumeTests.afterCut(at: Self.cut, by: .reset, then: [reply]) { session, _, resumeData in
            let partial = try DownloadResumeData.decode(resumeData).partialFilePath
            let ended = try await withTimeLimit(seconds: 30) {
                await networkError { try await session.download(resumeFrom: resumeData) }
            }
            let error = try #require(ended, "the task failed at the head, not after waiting for the body")
            #expect(error?.code == .cannotResumeDownload, "\(String(describing: error))")
            #expect(error?.reason.contains(words) == true, "\(String(describing: error))")
            #expect(error?.response != nil)
            #expect(!FileManager.default.fileExists(atPath: partial), "the bytes on disk go with the version they belonged to")
        }
    }

    @Test("an answer of another version that came while the task was suspended fails it as refused once resumed")
    func aRefusedHeldHeadFailsAsRefused() async throws {
        let suspended = AsyncEvent()
        let other = Self.partHead("Content-Length: \(Self.size - Self.cut)\r\nContent-Range: bytes \(Self.cut)-\(Self.size - 1)/\(Self.size)\r\n"
            + "ETag: \"v2\"\r\n")
        let script = ConnectionScript([.readRequest, .waitUntil { suspended.isSet }, .send(other), .stallUntilClosed(limit: .seconds(120))])
        try await SessionResumeTests.afterCut(at: Self.cut, by: .reset, then: [script]) { session, _, resumeData in
            let task = session.downloadTask(withResumeData: resumeData)
            // Ends at the head, not after a body that never comes (30 s).
            let error = await SessionResumeTests.failure(of: task) {
                task.suspend()
                suspended.set()
                #expect(await waitUntil { task.isHoldingResponseHeadForTests }, "the head waits for the task")
                task.resume()
            }
            #expect(error?.code == .cannotResumeDownload, "refused, not cancelled: \(String(describing: error))")
        }
    }

    @Test("a 206 that ends before its range does (a last chunk too soon) stops part way: the file stays, with resume data")
    func aPartThatEndsEarlyIsNotTheWholeFile() async throws {
        let early = Self.partHead("Transfer-Encoding: chunked\r\nContent-Range: bytes \(Self.cut)-\(Self.size - 1)/\(Self.size)\r\n"
            + "ETag: \"v1\"\r\n") + "a\r\n0123456789\r\n0\r\n\r\n"
        try await SessionResumeTests.afterCut(at: Self.cut, by: .reset, then: [.reply(early, closeAfter: false)]) { session, _, resumeData in
            let error = await networkError { try await session.download(resumeFrom: resumeData) }
            #expect(error?.code == .networkConnectionLost, "\(String(describing: error))")
            #expect(error?.reason.contains("\(Self.size - Self.cut - 10) bytes remaining") == true, "\(String(describing: error))")
            let again = try DownloadResumeData.decode(try #require(error?.downloadTaskResumeData, "the bytes that came can be continued"))
            defer { unlink(again.partialFilePath) }
            #expect(again.bytesOnDisk == Int64(Self.cut + 10))
            #expect(try Data(contentsOf: URL(fileURLWithPath: again.partialFilePath))
                    == Data(SessionResumeTests.source[..<Self.cut]) + Data("0123456789".utf8))
        }
    }

    @Test("a task made from resume data and cancelled before it started hands the same bytes back as resume data")
    func cancelledBeforeItStarted() async throws {
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let (resumeData, partial) = try SessionResumeTests.partialDownload(
            TestBytes.pattern(count: 700), of: URL(string: "http://127.0.0.1:1/file")!, validator: .entityTag("\"v1\""),
            expectedLength: 2_000, name: "never-started")
        defer { try? FileManager.default.removeItem(at: partial) }
        let task = session.downloadTask(withResumeData: resumeData)
        let again = try #require(await task.cancelByProducingResumeData(), "the partial file is not left without its data")
        let decoded = try DownloadResumeData.decode(again)
        #expect(decoded.partialFilePath == partial.path)
        #expect(decoded.bytesOnDisk == 700)
        #expect(decoded.expectedLength == 2_000)
        #expect(FileManager.default.fileExists(atPath: partial.path))
    }
}
