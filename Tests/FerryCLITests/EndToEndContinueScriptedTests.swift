import Foundation
import TestSupport
import Testing

/// `-C` against replies written byte for byte: servers that ignore the range, answer another
/// one, or stop part way. The file is "0123456789" on the server; the tests start with a
/// part of it on disk. Compared with curl 7.88 where it matters.
struct EndToEndContinueScriptedTests {
    private static let whole = Array("0123456789".utf8)

    private func server(_ scripts: [ConnectionScript]) throws -> ScriptedServer {
        try ScriptedServer(scripts: scripts, ioTimeout: .seconds(5))
    }

    /// A directory holding `file` with `bytes`.
    private func directory(holding bytes: [UInt8]) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let file = directory.path("file")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return (directory, file)
    }

    private static func partial(from offset: Int, sending count: Int? = nil) -> String {
        let rest = String(decoding: whole[offset...], as: UTF8.self)
        return "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(offset)-9/10\r\nContent-Length: \(rest.count)\r\n\r\n"
            + String(rest.prefix(count ?? rest.count))
    }

    /// curl 7.88: "HTTP server doesn't seem to support byte ranges. Cannot resume." (33), file
    /// as it was. Ferry says the library's reason, which names the status.
    @Test func serverIgnoringTheRangeIsThirtyThreeAndTheFileIsUntouched() async throws {
        let server = try server([.reply("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789")])
        defer { server.shutdown() }
        let (directory, file) = try directory(holding: Array("01234".utf8))
        let result = try await FerryProcess.run(
            "-sS", "-C", "-", "-o", file, "-w", "%{http_code} %{size_download}", server.url("/f").absoluteString)
        #expect(result.status == 33, "\(result)")
        #expect(result.stderr == "ferry: (33) Cannot continue the download: the server ignored the range request and sent "
                + "the whole resource (200)\n")
        #expect(result.stdoutText == "200 0")
        #expect(directory.contents("file") == Array("01234".utf8))
        #expect(server.receivedRequestHeads(connection: 0).first?.value(of: "Range") == "bytes=5-")
    }

    @Test func partFromAnotherOffsetIsThirtyThree() async throws {
        let server = try server([.reply(Self.partial(from: 0))])
        defer { server.shutdown() }
        let (directory, file) = try directory(holding: Array("01234".utf8))
        let result = try await FerryProcess.run("-sS", "-C", "-", "-o", file, server.url("/f").absoluteString)
        #expect(result.status == 33, "\(result)")
        #expect(result.stderr.hasPrefix("ferry: (33) Cannot continue the download: 206 starts at byte 0"), "\(result)")
        #expect(directory.contents("file") == Array("01234".utf8))
    }

    /// nginx's 416 carries an HTML page: it is not written, and not counted (curl 7.88 counts
    /// it in `size_download`).
    @Test func completeFilesPageIsNeitherWrittenNorCounted() async throws {
        let page = "<html>416 Requested Range Not Satisfiable</html>"
        let server = try server([.reply("HTTP/1.1 416 Requested Range Not Satisfiable\r\nContent-Range: bytes */10\r\n"
                                        + "Content-Type: text/html\r\nContent-Length: \(page.utf8.count)\r\n\r\n\(page)")])
        defer { server.shutdown() }
        let (directory, file) = try directory(holding: Self.whole)
        let result = try await FerryProcess.run(
            "-sS", "-C", "-", "-o", file, "-w", "%{http_code} %{size_download}", server.url("/f").absoluteString)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutText == "416 0")
        #expect(directory.contents("file") == Self.whole)
    }

    /// A transfer cut short keeps what arrived (18, as curl), and the next `-C -` goes on
    /// from there: what `-C` is for.
    @Test func cutShortKeepsItsBytesAndTheNextRunFinishes() async throws {
        let server = try server([.reply(Self.partial(from: 3, sending: 2)), .reply(Self.partial(from: 5))])
        defer { server.shutdown() }
        let (directory, file) = try directory(holding: Array("012".utf8))
        let url = server.url("/f").absoluteString
        let first = try await FerryProcess.run("-sS", "-C", "-", "-o", file, url)
        #expect(first.status == 18, "\(first)")
        #expect(directory.contents("file") == Array("01234".utf8))
        let second = try await FerryProcess.run("-sS", "-C", "-", "-o", file, "-w", "%{size_download}", url)
        #expect(second.status == 0, "\(second)")
        #expect(second.stdoutText == "5")
        #expect(directory.contents("file") == Self.whole)
        #expect(server.receivedRequestHeads(connection: 1).first?.value(of: "Range") == "bytes=5-")
    }

    @Test func maxTimeStopsAStalledPartAndKeepsWhatArrived() async throws {
        let server = try server([[.readRequest, .send(Self.partial(from: 3, sending: 2)), .stallUntilClosed]])
        defer { server.shutdown() }
        let (directory, file) = try directory(holding: Array("012".utf8))
        let result = try await FerryProcess.run("-sS", "-m", "2", "-C", "-", "-o", file, server.url("/f").absoluteString)
        #expect(result.status == 28, "\(result)")
        #expect(result.stderr.hasPrefix("ferry: (28) Operation timed out after "), "\(result)")
        #expect(result.stderr.hasSuffix(" with 2 bytes received\n"), "\(result)")
        #expect(directory.contents("file") == Array("01234".utf8))
    }

    /// `-v` shows where the transfer resumes (curl's `**` line), the Range sent, and the head
    /// of an answer the library refused (it reaches ferry inside the error).
    @Test func verboseShowsTheRangeAndARefusedHead() async throws {
        let server = try server([.reply("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789")])
        defer { server.shutdown() }
        let (directory, file) = try directory(holding: Array("01234".utf8))
        let result = try await FerryProcess.run("-v", "-C", "-", "-o", file, server.url("/f").absoluteString)
        #expect(result.status == 33, "\(result)")
        let lines = result.stderrLines
        #expect(lines.first == "** Resuming transfer from byte position 5")
        #expect(lines.contains("> Range: bytes=5-\r"))
        #expect(lines.contains("< HTTP/1.1 200 OK\r"))
        #expect(lines.last?.hasPrefix("ferry: (33) ") == true)
        #expect(directory.contents("file") == Array("01234".utf8))
    }

    /// With nothing to continue the download is an ordinary one, which writes whatever comes;
    /// curl -f writes no error body, so ferry takes it out again: no file when there was none,
    /// an empty one stays empty. Otherwise the next `-C -` would continue the error page.
    @Test(arguments: [false, true])
    func failOnAnOrdinaryDownloadLeavesNoErrorBody(fileExisted: Bool) async throws {
        let server = try server([.reply("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found")])
        defer { server.shutdown() }
        let directory = try TemporaryDirectory()
        let file = directory.path("file")
        if fileExisted { try Data().write(to: URL(fileURLWithPath: file)) }
        let result = try await FerryProcess.run(
            "-sS", "-f", "-C", "-", "-o", file, "-w", "%{http_code} %{size_download}", server.url("/f").absoluteString)
        #expect(result.status == 22, "\(result)")
        #expect(result.stderr == "ferry: (22) The requested URL returned error: 404\n")
        #expect(result.stdoutText == "404 0")
        #expect(directory.contents("file") == (fileExisted ? [] : nil))
        #expect(server.receivedRequestHeads(connection: 0).first?.value(of: "Range") == nil)
    }

    /// `-f -C 0` against a 404: nothing to continue, so an ordinary download, which opens the
    /// file only for a body it keeps: the file's bytes stay, as with curl.
    @Test func failFromOffsetZeroLeavesTheFileAsItWas() async throws {
        let server = try server([.reply("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found")])
        defer { server.shutdown() }
        let (directory, file) = try directory(holding: Self.whole)
        let result = try await FerryProcess.run("-sS", "-f", "-C", "0", "-o", file, server.url("/f").absoluteString)
        #expect(result.status == 22, "\(result)")
        #expect(directory.contents("file") == Self.whole)
    }

    // MARK: - The caller's file is never lost

    /// curl keeps the bytes of a first download that was cut short, so `-C -` in a retry loop
    /// makes progress: the continuing call never removes the caller's file.
    @Test func firstDownloadCutShortKeepsItsBytes() async throws {
        let server = try server([.reply("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234")])
        defer { server.shutdown() }
        let directory = try TemporaryDirectory()
        let result = try await FerryProcess.run("-sS", "-C", "-", "-o", directory.path("file"), server.url("/f").absoluteString)
        #expect(result.status == 18, "\(result)")
        #expect(directory.contents("file") == Array("01234".utf8))
    }

    /// `-C 0` on a file holding bytes, and the server cannot be reached: the file is as it was
    /// (it is cut only once an answer's body is written).
    @Test func offsetZeroKeepsTheFileWhenNothingArrives() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let (directory, file) = try directory(holding: Self.whole)
        let result = try await FerryProcess.run("-sS", "-C", "0", "-o", file, "http://127.0.0.1:\(refusing.port)/f")
        #expect(result.status == 7, "\(result)")
        #expect(directory.contents("file") == Self.whole)
    }

    /// A refused answer leaves the file untouched: the bytes past N are cut only once the rest
    /// is accepted.
    @Test func refusedAnswerLeavesTheBytesPastTheOffset() async throws {
        let server = try server([.reply("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789")])
        defer { server.shutdown() }
        let (directory, file) = try directory(holding: Self.whole)
        let result = try await FerryProcess.run("-sS", "-C", "5", "-o", file, server.url("/f").absoluteString)
        #expect(result.status == 33, "\(result)")
        #expect(directory.contents("file") == Self.whole)
    }
}
