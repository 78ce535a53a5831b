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
        let goneFile = SessionResumeTests.temporaryDownloadURL("gone")
        let gone = DownloadResumeData(url: URL(string: "http://127.0.0.1:1/x")!, headerFields: [], validator: .entityTag("\"a\""),
                                      bytesOnDisk: 10, partialFilePath: goneFile.path, expectedLength: nil, isTemporary: true).encoded()
        let shortFile = SessionResumeTests.temporaryDownloadURL("short")
        defer { try? FileManager.default.removeItem(at: shortFile) }
        try Data(count: 3).write(to: shortFile)
        let short = DownloadResumeData(url: URL(string: "http://127.0.0.1:1/x")!, headerFields: [], validator: .entityTag("\"a\""),
                                       bytesOnDisk: 10, partialFilePath: shortFile.path, expectedLength: nil, isTemporary: true).encoded()
        var otherVersion = try #require(try JSONSerialization.jsonObject(with: gone) as? [String: Any])
        otherVersion["version"] = 99
        let cases: [(Data, String)] = [
            (Data("garbage".utf8), "not Ferry's resume data"),
            (try JSONSerialization.data(withJSONObject: otherVersion), "version 99"),
            (gone, "\(goneFile.path): No such file or directory"),
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
        let fifo = SessionResumeTests.temporaryDownloadURL("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let link = SessionResumeTests.temporaryDownloadURL("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: precious)
        defer { for file in [fifo, link] { try? FileManager.default.removeItem(at: file) } }
        // Named as Ferry's, but in another directory than its temporary one.
        let elsewhere = directory.url.appendingPathComponent("ferry-download-elsewhere")
        try Data("keep me too".utf8).write(to: elsewhere)
        let url = URL(string: "http://127.0.0.1:1/x")!
        let cases: [(String, Bool, String)] = [
            (precious.path, true, "not one of Ferry's temporary files"),
            (elsewhere.path, true, "not one of Ferry's temporary files"),
            (fifo.path, false, "not one of Ferry's temporary files"),
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
        // Data edited to call any file the caller's own is refused: a caller continues its own
        // file by naming it again.
        let tampered = DownloadResumeData(url: url, headerFields: [], validator: .entityTag("\"a\""), bytesOnDisk: 3,
                                          partialFilePath: precious.path, expectedLength: nil, isCallersFile: true).encoded()
        let error = await SessionResumeTests.failure(of: session.downloadTask(withResumeData: tampered))
        #expect(error?.code == .cannotResumeDownload)
        #expect(error?.reason.contains("names a file of your own") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: precious) == Data("keep me".utf8))
        #expect(try Data(contentsOf: elsewhere) == Data("keep me too".utf8))
    }
}
