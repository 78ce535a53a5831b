#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport

@testable import FerrySession

/// Resume data is outside input (issue 19): bytes that are not resume data, of another version,
/// or naming a file Ferry must not touch fail the task with words, never a crash, a hang, or a
/// write through a link.
@Suite("Resume data refused")
struct SessionResumeDataRefusalTests {
    @Test("resume data that cannot be used fails the task with words, never a crash")
    func unusableResumeData() async throws {
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let gone = DownloadResumeData(url: URL(string: "http://127.0.0.1:1/x")!, headerFields: [], validator: .entityTag("\"a\""),
                                      bytesOnDisk: 10, partialFilePath: "/nonexistent/ferry-partial", expectedLength: nil, isCallersFile: true).encoded()
        let shortFile = SessionTest.temporaryURL("short")
        defer { try? FileManager.default.removeItem(at: shortFile) }
        try Data(count: 3).write(to: shortFile)
        let short = DownloadResumeData(url: URL(string: "http://127.0.0.1:1/x")!, headerFields: [], validator: .entityTag("\"a\""),
                                       bytesOnDisk: 10, partialFilePath: shortFile.path, expectedLength: nil, isCallersFile: true).encoded()
        var otherVersion = try #require(try JSONSerialization.jsonObject(with: gone) as? [String: Any])
        otherVersion["version"] = 99
        let cases: [(Data, String)] = [
            (Data("garbage".utf8), "not Ferry's resume data"),
            (try JSONSerialization.data(withJSONObject: otherVersion), "version 99"),
            (gone, "/nonexistent/ferry-partial: No such file or directory"),
            (short, "holds 3 bytes"),
        ]
        for (data, words) in cases {
            let error = await networkError { try await session.download(resumeFrom: data) }
            #expect(error?.code == .cannotResumeDownload)
            #expect(error?.reason.contains(words) == true, "\(String(describing: error))")
        }
        #expect(SessionTest.fileSize(shortFile) == 3, "a short partial file is left as it was")
    }


    @Test("resume data naming a file Ferry must not touch is refused: not its temporary file, a FIFO, a symbolic link")
    func untrustedPaths() async throws {
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let directory = try TemporaryDirectory()
        let precious = directory.url.appendingPathComponent("precious.txt")
        try Data("keep me".utf8).write(to: precious)
        let fifo = directory.url.appendingPathComponent("ferry-download-fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let link = directory.url.appendingPathComponent("ferry-download-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: precious)
        let url = URL(string: "http://127.0.0.1:1/x")!
        let cases: [(String, Bool, String)] = [
            (precious.path, true, "not one of Ferry's temporary files"),
            // Opened without blocking: with no reader, ENXIO; with one, it would not be a regular file.
            (fifo.path, true, "Cannot continue the download in \(fifo.path)"),
            (link.path, true, "Too many levels of symbolic links"),
        ]
        for (path, temporary, words) in cases {
            let data = DownloadResumeData(url: url, headerFields: [], validator: .entityTag("\"a\""), bytesOnDisk: 3,
                                          partialFilePath: path, expectedLength: nil, isTemporary: temporary).encoded()
            let error = await SessionResumeTests.failure(of: session.downloadTask(withResumeData: data))
            #expect(error?.code == .cannotResumeDownload)
            #expect(error?.reason.contains(words) == true, "\(String(describing: error))")
        }
        // A caller's file may be anywhere, but only a regular one is written.
        let device = DownloadResumeData(url: url, headerFields: [], validator: .entityTag("\"a\""), bytesOnDisk: 3,
                                        partialFilePath: "/dev/null", expectedLength: nil, isCallersFile: true).encoded()
        let error = await SessionResumeTests.failure(of: session.downloadTask(withResumeData: device))
        #expect(error?.reason.contains("/dev/null: it is not a regular file") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: precious) == Data("keep me".utf8))
    }
}
