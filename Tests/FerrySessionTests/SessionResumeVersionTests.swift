import Foundation
import Testing
import TestSupport

@testable import FerrySession

/// Only a part of the same version is joined to the bytes on disk (RFC 9110 §15.3.7.3): a
/// server or proxy that ignores If-Range shows it by naming another version or another length,
/// and a part that ends early must not pass for the whole file. Each such answer fails the
/// continued download, and its partial file goes. An answer refused at its head fails the task
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
        (partHead("Transfer-Encoding: chunked\r\nContent-Range: bytes \(cut)-\(size - 1)/\(size)\r\nETag: \"v1\"\r\n")
            + "a\r\n0123456789\r\n0\r\n\r\n",
         "the 206 ended at byte \(cut + 10) of \(size)"),
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
