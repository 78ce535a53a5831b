#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// The built `ferry` binary across several transfers and unusual framings: when connections
/// are reused and when they must not be, bodies without a length, HEAD, parallel failures and
/// a closed standard output.
struct EndToEndConnectionTests {
    private func outputs(_ count: Int) -> [String] {
        (0..<count).flatMap { _ in ["-o", "/dev/null"] }
    }

    @Test func headRequestsReuseTheConnectionWithoutWaitingForABody() async throws {
        try await HTTPBinServer.withServer { server in
            let url = server.url("/bytes/100").absoluteString
            let result = try await FerryProcess.run(["-sS", "-I", "-w", "%{http_code} %{num_connects}\\n", url, url, url])
            #expect(result.status == 0, "\(result)")
            let heads = result.stdoutText.components(separatedBy: "\r\n\r\n")
            // Each head ends with an empty line and is followed by that transfer's -w line.
            #expect(heads.count == 4, "\(result.stdoutText)")
            #expect(heads.dropFirst().map { $0.prefix(6) } == ["200 1\n", "200 0\n", "200 0\n"])
            #expect(heads.allSatisfy { !$0.contains("\u{0}") })
            #expect(server.connectionCount == 1)
            #expect(server.receivedRequests.map(\.method) == ["HEAD", "HEAD", "HEAD"])
        }
    }

    @Test func aBodyEndingAtCloseIsCompleteAndTheConnectionIsNotReused() async throws {
        try await HTTPBinServer.withServer { server in
            let url = server.url("/no-length?size=3000").absoluteString
            let result = try await FerryProcess.run(["-sS", "-w", "%{num_connects}\\n"] + [url, url])
            #expect(result.status == 0, "\(result)")
            let expected = TestBytes.pattern(count: 3000) + Array("1\n".utf8)
            #expect(result.stdout == expected + expected)
            #expect(server.connectionCount == 2)
        }
    }

    @Test func headOnABodyWithoutLengthDoesNotWaitForClose() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-I", "-m", "5", server.url("/no-length?size=10").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText.hasPrefix("HTTP/1.1 200 OK\r\n"))
        }
    }

    /// `-f` stops before an error's body. curl closes the connection; Ferry may drain a small
    /// body and reuse it. Either way the next transfer must get its own response, intact.
    @Test func failLeavesTheNextTransferIntact() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sS", "-f", "-w", "%{http_code} %{num_connects}\\n",
                server.url("/missing").absoluteString, server.url("/bytes/1").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.starts(with: Array("404 1\n".utf8) + TestBytes.pattern(count: 1) + Array("200 ".utf8)))
            #expect(result.stderrLines == ["ferry: (22) The requested URL returned error: 404"])
            #expect(server.requestCount == 2)
        }
    }

    /// `--max-filesize` gives up on an announced body without reading it: 1 MiB is left
    /// unread on the connection, and the next URL must not read it as its response.
    @Test func abandonedBodyIsNotTakenForTheNextResponse() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sS", "--max-filesize", "1000", "-w", "%{http_code}\\n",
                server.url("/bytes/1048576").absoluteString, server.url("/bytes/999").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.dropFirst(4) == ArraySlice(TestBytes.pattern(count: 999) + Array("200\n".utf8)))
            #expect(result.stderrLines == ["ferry: (63) Maximum file size exceeded"])
        }
    }

    /// `--limit-rate` caps the download (and, as curl's, the upload: the `-d` body goes out
    /// whole). The duration is a lower bound only; the rate's accuracy is a benchmark figure.
    @Test func limitRateCapsTheTransferAndLosesNothing() async throws {
        try await HTTPBinServer.withServer { server in
            let clock = ContinuousClock()
            let start = clock.now
            let result = try await FerryProcess.run(
                "-sS", "--limit-rate", "40K", "-w", "%{size_download}", server.url("/bytes/61440").absoluteString)
            let elapsed = clock.now - start
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == TestBytes.pattern(count: 61_440) + Array("61440".utf8))
            // (60 KiB − the 4 KiB burst) at 40 KiB/s.
            #expect(elapsed >= .milliseconds(1_200), "\(elapsed)")
            let upload = try await FerryProcess.run(
                "-sS", "--limit-rate", "40K", "-d", String(repeating: "x", count: 61_440), "-o", "/dev/null",
                "-w", "%{size_upload}", server.url("/status/204").absoluteString)
            #expect(upload.status == 0 && upload.stdoutText == "61440", "\(upload)")
            #expect(clock.now - start >= .milliseconds(2_400), "both transfers were capped")
        }
    }

    /// curl prints `200` for `%{http_code}` when `--max-filesize` refuses an announced length:
    /// the status line had arrived.
    @Test
    func maxFilesizeStillReportsTheStatus() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sS", "--max-filesize", "10", "-w", "%{http_code}", server.url("/bytes/100").absoluteString)
            #expect(result.status == 63)
            #expect(result.stdoutText == "200")
            // As curl: a HEAD's announced length counts too.
            let head = try await FerryProcess.run("-sSI", "--max-filesize", "10", "-o", "/dev/null", server.url("/bytes/100").absoluteString)
            #expect(head.status == 63, "\(head)")
        }
    }

    @Test func parallelRunExitsWithTheFailureAndStillFetchesTheRest() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let deadURL = refusing.url()
        try await HTTPBinServer.withServer { server in
            let good = (1...3).map { server.url("/bytes/\($0)").absoluteString }
            let result = try await FerryProcess.run(["-sS", "-Z", "-w", "%{http_code}\\n"] + outputs(4) + good + [deadURL])
            #expect(result.status == 7, "\(result)")
            #expect(result.stdoutText.split(separator: "\n").sorted() == ["000", "200", "200", "200"])
            #expect(result.stderrLines.count == 1)
            #expect(server.requestCount == 3)
        }
    }

    @Test func parallelFetchesShareConnectionsNoMoreThanTheLimit() async throws {
        try await HTTPBinServer.withServer { server in
            let urls = (1...6).map { server.url("/delay/0.2?n=\($0)").absoluteString }
            let result = try await FerryProcess.run(["-sS", "-Z", "--parallel-max", "2"] + outputs(6) + urls)
            #expect(result.status == 0, "\(result)")
            #expect(server.connectionCount == 2)
            #expect(server.requestCount == 6)
        }
    }

    @Test func largeDownloadToAFileIsExact() async throws {
        let directory = try TemporaryDirectory()
        try await HTTPBinServer.withServer { server in
            let size = 8 * 1024 * 1024 + 17
            let result = try await FerryProcess.run(
                "-sS", "-o", directory.path("big"), "-w", "%{size_download}", server.url("/large/\(size)").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "\(size)")
            let bytes = try #require(directory.contents("big"))
            #expect(bytes.count == size)
            #expect(TestBytes.firstMismatch(in: bytes) == nil)
        }
    }

    @Test func failedTransferLeavesNoOutputFile() async throws {
        let directory = try TemporaryDirectory()
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let url = refusing.url()
        let result = try await FerryProcess.run("-sS", "-o", directory.path("never"), url)
        #expect(result.status == 7)
        #expect(directory.contents("never") == nil)
    }

    @Test func includeWithOutputPutsTheHeadInTheFile() async throws {
        let directory = try TemporaryDirectory()
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-i", "-o", directory.path("f"), server.url("/bytes/5").absoluteString)
            #expect(result.status == 0, "\(result)")
            let bytes = try #require(directory.contents("f"))
            #expect(bytes.starts(with: Array("HTTP/1.1 200 OK\r\n".utf8)))
            #expect(Array(bytes.suffix(9)) == Array("\r\n\r\n".utf8) + TestBytes.pattern(count: 5))
        }
    }

    @Test func deflateAndChunkedBodiesDecode() async throws {
        try await HTTPBinServer.withServer { server in
            for path in ["/deflate", "/deflate-raw"] {
                let result = try await FerryProcess.run("-sS", "--compressed", server.url(path).absoluteString)
                #expect(result.status == 0, "\(path): \(result)")
                #expect(jsonObject(result.stdout)["method"] as? String == "GET", "\(path)")
            }
            let chunked = try await FerryProcess.run("-sS", server.url("/stream-bytes/25000?chunk_size=999").absoluteString)
            #expect(chunked.status == 0, "\(chunked)")
            #expect(chunked.stdout == TestBytes.pattern(count: 25000))
        }
    }

    @Test func closedStandardOutputIsTwentyThree() async throws {
        try await HTTPBinServer.withServer { server in
            // Standard output is a pipe whose read end is already closed.
            var output: [Int32] = [-1, -1]
            var errors: [Int32] = [-1, -1]
            try #require(pipe(&output) == 0 && pipe(&errors) == 0)
            for fd in output + errors { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            close(output[0])
            let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
            let child: ChildProcess
            do {
                defer {
                    close(devNull)
                    close(output[1])
                    close(errors[1])
                }
                child = try ChildProcess(
                    executable: FerryProcess.binary.path, arguments: ["-sS", server.url("/bytes/200000").absoluteString],
                    directory: nil, stdin: devNull, stdout: output[1], stderr: errors[1])
            }
            // Suspends until the exit; waitUntilExit() would park a cooperative-pool thread.
            let ending = await child.ending()
            // The child has exited and every write end is closed: this read ends at once.
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while case let count = read(errors[0], &buffer, buffer.count), count > 0 { bytes += buffer[0..<count] }
            close(errors[0])
            let stderr = String(decoding: bytes, as: UTF8.self)
            #expect(ending == .exited(23))
            #expect(stderr == "ferry: (23) Failure writing output to destination\n")
        }
    }
}
