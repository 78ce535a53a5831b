import Foundation
import HTTPTypes
import Testing
import TestSupport

@testable import FerrySession

/// Continuing a file the caller names, without resume data: curl's `-C`.
@Suite("Continuing a file (curl -C)")
struct SessionContinueFileTests {
    @Test("the file's bytes are kept and the rest appended; no If-Range without a validator")
    func continuesFromTheFilesEnd() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let file = SessionTest.temporaryURL("continue")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(TestBytes.pattern(count: 7_000)).write(to: file)
            let task = session.downloadTask(with: NetworkRequest(url: server.url("/range/20000")), continuing: file)
            #expect(task.originalRequest.headerFields[.range] == "bytes=7000-")
            #expect(task.originalRequest.headerFields[.ifRange] == nil)
            let (location, response) = try await session.download(for: NetworkRequest(url: server.url("/range/20000")), continuing: file)
            #expect(response.statusCode == 206)
            #expect(location == file)
            #expect(try Data(contentsOf: file) == Data(TestBytes.pattern(count: 20_000)))
        }
    }

    @Test("an offset keeps that many bytes and cuts the rest off")
    func continuesFromAnOffset() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let file = SessionTest.temporaryURL("offset")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(TestBytes.pattern(count: 3_000) + [1, 2, 3]).write(to: file)
            _ = try await session.download(for: NetworkRequest(url: server.url("/range/9000")), continuing: file, from: 3_000)
            #expect(try Data(contentsOf: file) == Data(TestBytes.pattern(count: 9_000)))
        }
    }

    @Test("a complete file gets a 416 and stays as it is")
    func aCompleteFileStays() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let file = SessionTest.temporaryURL("complete")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(TestBytes.pattern(count: 5_000)).write(to: file)
            let (_, response) = try await session.download(for: NetworkRequest(url: server.url("/range/5000")), continuing: file)
            #expect(response.statusCode == 416)
            #expect(try Data(contentsOf: file) == Data(TestBytes.pattern(count: 5_000)))
        }
    }

    @Test("a server that ignores the range fails the download and leaves the file untouched")
    func aServerIgnoringTheRangeIsRefused() async throws {
        let whole = ConnectionScript.reply("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh")
        try await ScriptedServer.withServer(scripts: [whole]) { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let file = SessionTest.temporaryURL("ignored")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data("kept".utf8).write(to: file)
            let error = await networkError { try await session.download(for: NetworkRequest(url: server.url("/x")), continuing: file) }
            #expect(error?.code == .cannotResumeDownload)
            #expect(error?.reason.contains("ignored the range request") == true, "\(String(describing: error))")
            #expect(error?.response?.statusCode == 200)
            #expect(try Data(contentsOf: file) == Data("kept".utf8))
        }
    }

    @Test("a missing file is an ordinary download into it, with no Range")
    func aMissingFileIsDownloaded() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let file = SessionTest.temporaryURL("missing")
            defer { try? FileManager.default.removeItem(at: file) }
            let task = session.downloadTask(with: NetworkRequest(url: server.url("/range/100")), continuing: file)
            #expect(task.originalRequest.headerFields[.range] == nil)
            let (_, response) = try await session.download(for: NetworkRequest(url: server.url("/range/100")), continuing: file)
            #expect(response.statusCode == 200)
            #expect(try Data(contentsOf: file) == Data(TestBytes.pattern(count: 100)))
        }
    }

    @Test("a negative offset is refused; from 0 the caller's file is still never removed")
    func offsets() async throws {
        let reset = ConnectionScript([.readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"), .reset])
        try await ScriptedServer.withServer(scripts: [reset]) { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let file = SessionTest.temporaryURL("zero")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data("old".utf8).write(to: file)
            let negative = await networkError {
                try await session.download(for: NetworkRequest(url: server.url("/x")), continuing: file, from: -1)
            }
            #expect(negative?.code == .cannotResumeDownload)
            #expect(try Data(contentsOf: file) == Data("old".utf8))
            let lost = await networkError { try await session.download(for: NetworkRequest(url: server.url("/x")), continuing: file, from: 0) }
            #expect(lost?.code == .networkConnectionLost)
            #expect(FileManager.default.fileExists(atPath: file.path), "the caller's file stays")
        }
    }

    @Test("the caller's file is never removed, even by a plain cancel")
    func aCancelKeepsTheCallersFile() async throws {
        let stalled = ConnectionScript([
            .readRequest, .send("HTTP/1.1 206 Partial Content\r\nContent-Length: 100\r\nContent-Range: bytes 4-103/104\r\n\r\n"),
            .send("abcd"), .stallUntilClosed(limit: .seconds(30)),
        ])
        try await ScriptedServer.withServer(scripts: [stalled]) { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let file = SessionTest.temporaryURL("callers")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data("0123".utf8).write(to: file)
            let task = Task { try await session.download(for: NetworkRequest(url: server.url("/x")), continuing: file) }
            #expect(await waitUntil { SessionTest.fileSize(file) == 8 })
            task.cancel()
            let error = await networkError { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(try Data(contentsOf: file) == Data("0123abcd".utf8))
        }
    }
}
