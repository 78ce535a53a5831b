import Foundation
import TestSupport
import Testing

/// curl's exit codes from the built `ferry` binary, each caused by a real failure: a closed
/// port, a slow, silent, lying or resetting server, a full disk path, a refused argument.
/// Every failure prints exactly one `ferry: (N) …` line on standard error.
struct EndToEndFailureTests {
    /// Runs ferry with `-sS` (errors shown, no meter) and checks the exit code and that standard
    /// error is one `ferry: (code) …` line containing every piece of `naming`.
    private func expectFailure(
        _ code: Int32, _ arguments: [String], naming pieces: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> FerryProcess.Result {
        let result = try await FerryProcess.run(["-sS"] + arguments)
        #expect(result.status == code, "\(result)", sourceLocation: sourceLocation)
        #expect(!result.timedOut, sourceLocation: sourceLocation)
        let lines = result.stderrLines
        #expect(lines.count == 1, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        let line = lines.first ?? ""
        #expect(line.hasPrefix("ferry: (\(code)) "), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        for piece in pieces {
            #expect(line.contains(piece), "\(line) should name \(piece)", sourceLocation: sourceLocation)
        }
        return result
    }

    /// A server that replies `raw` to the first request and then closes.
    private func scripted(_ steps: [ScriptStep]) throws -> ScriptedServer {
        try ScriptedServer(scripts: [ConnectionScript(steps)], ioTimeout: .seconds(5))
    }

    @Test func closedPortIsSeven() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        _ = try await expectFailure(7, ["http://127.0.0.1:\(port)/"], naming: ["127.0.0.1", "port \(port)", "Connection refused"])
    }

    @Test func silentHidesTheLineAndShowErrorBringsItBack() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let url = refusing.url()
        let silent = try await FerryProcess.run("-s", url)
        #expect(silent.status == 7)
        #expect(silent.stderr.isEmpty)
        let plain = try await FerryProcess.run(url)
        #expect(plain.status == 7)
        #expect(plain.stderrLines.last?.hasPrefix("ferry: (7) ") == true, "\(plain)")
    }

    @Test func silentAloneHidesEveryKindOfFailure() async throws {
        try await HTTPBinServer.withServer { server in
            for arguments in [["-f", server.url("/status/404").absoluteString], ["http://exa mple/"],
                              ["--max-filesize", "1", server.url("/bytes/2").absoluteString]] {
                let silent = try await FerryProcess.run(["-s"] + arguments)
                #expect(silent.status != 0 && silent.stderr.isEmpty, "\(arguments): \(silent)")
                let shown = try await FerryProcess.run(["-s", "-S"] + arguments)
                #expect(shown.status == silent.status)
                #expect(shown.stderrLines.count == 1 && shown.stderr.hasPrefix("ferry: ("), "\(arguments): \(shown)")
            }
        }
    }

    @Test func maxTimeIsTwentyEight() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await expectFailure(28, ["-m", "0.5", server.url("/delay/30").absoluteString], naming: ["Operation timed out after", "milliseconds with 0 bytes received"])
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func closeWithoutReplyIsFiftyTwo() async throws {
        let server = try scripted([.readRequest, .close])
        defer { server.shutdown() }
        _ = try await expectFailure(52, [server.url("/").absoluteString], naming: ["Empty reply from server"])
    }

    @Test func garbageStatusLineIsEight() async throws {
        let server = try scripted([.readRequest, .send("HELLO there\r\n\r\n"), .close])
        defer { server.shutdown() }
        _ = try await expectFailure(8, [server.url("/").absoluteString])
    }

    @Test func shortBodyIsEighteen() async throws {
        let server = try scripted([.readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"), .close])
        defer { server.shutdown() }
        let result = try await expectFailure(18, [server.url("/").absoluteString], naming: ["90 bytes remaining"])
        #expect(result.stdoutText == "0123456789")
    }

    @Test func resetInsideTheBodyIsFiftySix() async throws {
        let server = try scripted([
            .readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"),
            .sleep(.milliseconds(200)), .reset,
        ])
        defer { server.shutdown() }
        _ = try await expectFailure(56, [server.url("/").absoluteString], naming: ["reset"])
    }

    @Test("broken chunked framing is 56, as curl's, not 8: the head was fine", arguments: [
        "zz\r\nhello\r\n0\r\n\r\n",  // not a hexadecimal size
        "5\r\nhelloXX0\r\n\r\n",  // no CRLF after the chunk
    ])
    func brokenChunkedFramingIsFiftySix(body: String) async throws {
        let server = try scripted([.readRequest, .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body), .close])
        defer { server.shutdown() }
        _ = try await expectFailure(56, [server.url("/").absoluteString], naming: ["chunk"])
    }

    @Test func corruptGzipIsSixtyOne() async throws {
        let garbage = "this is not gzip at all"
        let server = try scripted([
            .readRequest,
            .send("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(garbage.utf8.count)\r\n\r\n\(garbage)"),
            .close,
        ])
        defer { server.shutdown() }
        _ = try await expectFailure(61, ["--compressed", server.url("/").absoluteString])
    }

    @Test func maxFilesizeIsSixtyThreeWithAndWithoutALength() async throws {
        try await HTTPBinServer.withServer { server in
            for path in ["/bytes/100", "/stream-bytes/100?chunk_size=20"] {
                let result = try await expectFailure(63, ["--max-filesize", "10", server.url(path).absoluteString],
                                                     naming: ["Maximum file size exceeded"])
                #expect(result.stdout.count <= 10, "\(path): \(result.stdout.count) bytes written")
            }
        }
    }

    @Test func unwritableOutputIsTwentyThree() async throws {
        try await HTTPBinServer.withServer { server in
            _ = try await expectFailure(23, ["-o", "/nonexistent-dir/x", server.url("/bytes/10").absoluteString],
                                        naming: ["/nonexistent-dir/x", "No such file or directory"])
        }
    }

    @Test func headerWithLineBreakIsTwoAndNothingIsSent() async throws {
        let server = try scripted([.readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), .close])
        defer { server.shutdown() }
        let result = try await FerryProcess.run("-sS", "-H", "X: a\r\nB: c", server.url("/").absoluteString)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(result.stderr.hasPrefix("ferry: option -H: "))
        // A later request lands on the server's first connection only if the refused run
        // opened none: the server serves connections in the order the kernel queued them.
        let marker = try await FerryProcess.run("-sS", server.url("/marker").absoluteString)
        #expect(marker.status == 0, "\(marker)")
        #expect(server.receivedRequestHeads(connection: 0).map(\.startLine) == ["GET /marker HTTP/1.1"])
        #expect(server.acceptedConnections == 1)
    }

    @Test func malformedURLIsThree() async throws {
        _ = try await expectFailure(3, ["http://exa mple/"], naming: ["URL"])
        _ = try await expectFailure(3, ["http://"])
    }

    @Test func otherSchemeIsOne() async throws {
        let server = try scripted([])
        defer { server.shutdown() }
        _ = try await expectFailure(1, ["ftp://127.0.0.1:\(server.port)/x"], naming: ["ftp"])
        #expect(server.acceptedConnections == 0)
    }

    @Test func aFailureDoesNotStopTheNextURL() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sS", "-w", "%{http_code}\\n", "http://127.0.0.1:\(port)/", server.url("/bytes/3").absoluteString)
            // curl 7.88 returns the last transfer's code when they run one after another.
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == Array("000\n".utf8) + TestBytes.pattern(count: 3) + Array("200\n".utf8))
            #expect(result.stderrLines.count == 1)
        }
    }
}
