import Foundation
import TestSupport
import Testing

/// `-C`/`--continue-at` through the built `ferry` binary against httpbin's `/range/N`, which
/// honours `Range` (206 from the offset, 416 `bytes */N` past the end): the file ends as the
/// whole resource, and `-w` tells what this run transferred. Servers that do not honour the
/// range are in ``EndToEndContinueScriptedTests``.
struct EndToEndContinueTests {
    private static let size = 100_000

    private var resource: String { "/range/\(Self.size)" }

    /// Whether `bytes` are the first `count` bytes of the pattern, without printing 100 kB
    /// when they are not.
    private func isPattern(_ bytes: [UInt8]?, count: Int = size) -> Bool {
        guard let bytes, bytes.count == count else { return false }
        return TestBytes.firstMismatch(in: bytes) == nil
    }

    @Test(arguments: [1, 1000, 65_536, 99_999])
    func continueFromTheEndCompletesTheFileExactly(offset: Int) async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("partial")
        try Data(TestBytes.pattern(count: offset)).write(to: URL(fileURLWithPath: file))
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sS", "-C", "-", "-o", file, "-w", "%{http_code} %{size_download}", server.url(resource).absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "206 \(Self.size - offset)", "size_download counts this run's bytes only")
            #expect(result.stderr.isEmpty)
            #expect(isPattern(directory.contents("partial")))
            #expect(server.lastRequest?.value(of: "range") == "bytes=\(offset)-")
            #expect(server.lastRequest?.value(of: "if-range") == nil, "bytes on disk carry no validator")
        }
    }

    @Test func longOptionWithAnOffsetContinuesThere() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("partial")
        try Data(TestBytes.pattern(count: 4321)).write(to: URL(fileURLWithPath: file))
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "--continue-at", "4321", "-o", file, server.url(resource).absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(isPattern(directory.contents("partial")))
            #expect(server.lastRequest?.value(of: "range") == "bytes=4321-")
        }
    }

    /// The 416 that names the file's own length: curl 7.88 also exits 0 (but counts the 416's
    /// page in `size_download`, and with `-f` exits 22; ferry's download is complete: 0).
    @Test(arguments: [[String](), ["-f"]])
    func completeFileIsExitZeroWithNothingTransferred(_ extra: [String]) async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("whole")
        try Data(TestBytes.pattern(count: Self.size)).write(to: URL(fileURLWithPath: file))
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                ["-sS", "-C", "-", "-o", file, "-w", "%{http_code} %{size_download}"] + extra + [server.url(resource).absoluteString])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "416 0")
            #expect(result.stderr.isEmpty)
            #expect(isPattern(directory.contents("whole")))
            #expect(server.lastRequest?.value(of: "range") == "bytes=\(Self.size)-")
        }
    }

    @Test func continueFromTheEndOfAMissingFileIsAnOrdinaryDownload() async throws {
        let directory = try TemporaryDirectory()
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sS", "-C", "-", "-o", directory.path("new"), "-w", "%{http_code} %{size_download}",
                server.url(resource).absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "200 \(Self.size)")
            #expect(isPattern(directory.contents("new")))
            #expect(server.lastRequest?.value(of: "range") == nil, "nothing to continue: no Range")
        }
    }

    /// curl opens the file for appending and adds the rest after all its bytes (a 5000-byte
    /// offset into an 8000-byte file makes 103000 bytes); ferry keeps the first N and appends.
    @Test func offsetInsideALongerFileCutsItThereThenAppends() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("longer")
        try Data(TestBytes.pattern(count: 5000) + [UInt8](repeating: 0xFF, count: 3000)).write(to: URL(fileURLWithPath: file))
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-C", "5000", "-o", file, server.url(resource).absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(isPattern(directory.contents("longer")))
            #expect(server.lastRequest?.value(of: "range") == "bytes=5000-")
        }
    }

    /// curl appends the bytes from N after a shorter file (a hole of missing bytes); the
    /// library refuses before sending anything.
    @Test func offsetBeyondTheFileIsThirtyThreeAndSendsNothing() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("short")
        try Data(TestBytes.pattern(count: 100)).write(to: URL(fileURLWithPath: file))
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-C", "300", "-o", file, server.url(resource).absoluteString)
            #expect(result.status == 33, "\(result)")
            #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("ferry: (33) Cannot continue the download at byte 300"),
                    "\(result)")
            #expect(directory.contents("short") == TestBytes.pattern(count: 100))
            #expect(server.requestCount == 0)
        }
    }

    /// `-f` judges the status before the range, as curl: 22 with curl's words, the file as it
    /// was. Without `-f` the 404 does not continue the file: 33.
    @Test func failOnA404IsTwentyTwoAndWithoutItThirtyThree() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("partial")
        try Data(TestBytes.pattern(count: 300)).write(to: URL(fileURLWithPath: file))
        try await HTTPBinServer.withServer { server in
            let url = server.url("/status/404").absoluteString
            let failing = try await FerryProcess.run("-sS", "-f", "-C", "-", "-o", file, "-w", "%{http_code}", url)
            #expect(failing.status == 22, "\(failing)")
            #expect(failing.stderr == "ferry: (22) The requested URL returned error: 404\n")
            #expect(failing.stdoutText == "404")
            #expect(directory.contents("partial") == TestBytes.pattern(count: 300))
            let plain = try await FerryProcess.run("-sS", "-C", "-", "-o", file, url)
            #expect(plain.status == 33, "\(plain)")
            #expect(plain.stderr == "ferry: (33) Cannot continue the download: the server answered the range request with 404\n")
            #expect(directory.contents("partial") == TestBytes.pattern(count: 300))
        }
    }

    /// curl compares `--max-filesize` with the 206's length (what is left), not the whole
    /// file's: the same here. The limit refuses before any byte is appended.
    @Test func maxFilesizeBelowWhatIsLeftIsSixtyThreeAndKeepsTheFile() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("partial")
        try Data(TestBytes.pattern(count: 90_000)).write(to: URL(fileURLWithPath: file))
        try await HTTPBinServer.withServer { server in
            let url = server.url(resource).absoluteString
            let refused = try await FerryProcess.run("-sS", "--max-filesize", "9999", "-C", "-", "-o", file, url)
            #expect(refused.status == 63, "\(refused)")
            #expect(refused.stderr == "ferry: (63) Maximum file size exceeded\n")
            #expect(isPattern(directory.contents("partial"), count: 90_000))
            let allowed = try await FerryProcess.run("-sS", "--max-filesize", "10000", "-C", "-", "-o", file, url)
            #expect(allowed.status == 0, "\(allowed)")
            #expect(isPattern(directory.contents("partial")))
        }
    }

    @Test func everyURLContinuesItsOwnFile() async throws {
        let directory = try TemporaryDirectory()
        try Data(TestBytes.pattern(count: 10)).write(to: URL(fileURLWithPath: directory.path("a")))
        try await HTTPBinServer.withServer { server in
            let url = server.url(resource).absoluteString
            let result = try await FerryProcess.run(
                "-sS", "-C", "-", "-w", "%{http_code} %{size_download}\\n", "-o", directory.path("a"), url,
                "-o", directory.path("b"), url)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "206 \(Self.size - 10)\n200 \(Self.size)\n")
            #expect(isPattern(directory.contents("a")) && isPattern(directory.contents("b")))
        }
    }

    /// curl continues standard output too, and writes the head into the resumed file with
    /// `-i`; ferry refuses both (exit 2) before anything is sent.
    @Test(arguments: [["-C", "-"], ["-C", "5", "-o", "-"], ["-C", "-", "-i", "-o", "f"], ["-C", "-", "-I", "-o", "f"]])
    func standardOutputAndTheHeadAreUsageErrors(_ arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(["-sS"] + arguments + [server.url(resource).absoluteString], in: directory.url)
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr.hasPrefix("ferry: option -C: "), "\(result)")
            #expect(result.stdout.isEmpty)
            #expect(server.requestCount == 0)
            #expect(directory.contents("f") == nil)
        }
    }
}
