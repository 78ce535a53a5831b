import Foundation
import TestSupport
import Testing

/// What the built `ferry` binary puts on the wire for curl's less common spellings, checked at
/// an independent server and compared with what curl 7.88 sends.
struct EndToEndRequestTests {
    private func fetch(_ server: HTTPBinServer, _ arguments: String...) async throws -> (FerryProcess.Result, RecordedRequestHead) {
        try await fetch(server, arguments)
    }

    private func fetch(_ server: HTTPBinServer, _ arguments: [String]) async throws -> (FerryProcess.Result, RecordedRequestHead) {
        let result = try await FerryProcess.run(["-sS"] + arguments)
        #expect(result.status == 0, "\(result)")
        let request = try #require(server.lastRequest)
        return (result, request)
    }

    @Test func postWithoutDataSendsNoBodyFraming() async throws {
        try await HTTPBinServer.withServer { server in
            let (_, request) = try await fetch(server, "-X", "POST", server.url("/anything").absoluteString)
            #expect(request.method == "POST")
            #expect(request.value(of: "Content-Type") == nil)
            #expect(request.value(of: "Transfer-Encoding") == nil)
            #expect((request.value(of: "Content-Length") ?? "0") == "0")
        }
    }

    @Test func emptyDataIsAnEmptyFormPost() async throws {
        try await HTTPBinServer.withServer { server in
            let (_, request) = try await fetch(server, "-d", "", "-w", "%{size_upload}", server.url("/anything").absoluteString)
            #expect(request.method == "POST")
            #expect(request.value(of: "Content-Length") == "0")
            #expect(request.value(of: "Content-Type") == "application/x-www-form-urlencoded")
        }
    }

    /// Each case as curl 7.88 sent it (checked against the same nginx): -r on GET and HEAD,
    /// a lone number completed with a dash, -C's range over -r's, none with a body.
    @Test("-r, --range", arguments: [
        (["-r", "0-9"], "bytes=0-9"), (["--range", "500-,-100"], "bytes=500-,-100"), (["-r", "5"], "bytes=5-"),
        (["-I", "-r", "0-0"], "bytes=0-0"), (["-G", "-d", "a=1", "-r", "1-2"], "bytes=1-2"),
        (["-d", "x", "-r", "0-9"], nil), (["-H", "Range: bytes=7-", "-r", "0-9"], "bytes=7-"),
        // Nothing to continue: -C 0 leaves -r's range, as curl's; a leading number is read as strtoll reads it.
        (["-C", "0", "-r", "0-9"], "bytes=0-9"), (["-r", "5abc"], "bytes=5-"), (["-r", "5,10"], "bytes=5-"),
    ] as [([String], String?)])
    func range(arguments: [String], sent: String?) async throws {
        try await HTTPBinServer.withServer { server in
            let (_, request) = try await fetch(server, arguments + ["-o", "/dev/null", server.url("/anything").absoluteString])
            #expect(request.value(of: "Range") == sent)
        }
    }

    @Test func aRangeWithoutItsDashIsCompletedWithCurlsWarning() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(["-r", "5", "-o", "/dev/null", server.url("/anything").absoluteString])
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.contains("Warning: A specified range MUST include at least one dash (-). Appending one for you!"))
        }
    }

    @Test func userHeadersReplaceDefaultsWithoutDuplicates() async throws {
        try await HTTPBinServer.withServer { server in
            let (_, request) = try await fetch(
                server, "-o", "/dev/null", "-H", "Accept: text/plain", "-H", "X-Empty;", "-H", "Content-Type: text/x",
                "-d", "z", server.url("/anything").absoluteString)
            #expect(request.values(of: "Accept") == ["text/plain"])
            #expect(request.values(of: "X-Empty") == [""])
            #expect(request.values(of: "Content-Type") == ["text/x"])
        }
    }

    @Test func hostHeaderOverridesTheAuthority() async throws {
        try await HTTPBinServer.withServer { server in
            let (_, request) = try await fetch(server, "-o", "/dev/null", "-H", "Host: example.test", server.url("/get").absoluteString)
            #expect(request.values(of: "Host") == ["example.test"])
        }
    }

    @Test func schemelessURLAndFragment() async throws {
        try await HTTPBinServer.withServer { server in
            let (_, request) = try await fetch(server, "-o", "/dev/null", "127.0.0.1:\(server.port)/get?a=1#frag")
            #expect(request.uri == "/get?a=1")
            let (_, bare) = try await fetch(server, "-o", "/dev/null", "127.0.0.1:\(server.port)")
            #expect(bare.uri == "/")
        }
    }

    @Test func getAppendsToAnExistingQuery() async throws {
        try await HTTPBinServer.withServer { server in
            let (_, request) = try await fetch(server, "-o", "/dev/null", "-G", "-d", "b=2", "-d", "c=%41", server.url("/get?a=1").absoluteString)
            #expect(request.uri == "/get?a=1&b=2&c=%41")
        }
    }

    @Test func uploadSizeAndJSONPiecesJoin() async throws {
        try await HTTPBinServer.withServer { server in
            let (result, _) = try await fetch(
                server, "-o", "/dev/null", "-w", "%{size_upload}", "--json", "{\"a\":", "--json", "1}", server.url("/anything").absoluteString)
            #expect(result.stdoutText == "7")
            let (echo, _) = try await fetch(server, "--json", "{\"a\":", "--json", "1}", server.url("/anything").absoluteString)
            #expect(jsonObject(echo.stdout)["data"] as? String == "{\"a\":1}")
        }
    }

    @Test func redirectIsNotFollowedByDefault() async throws {
        try await HTTPBinServer.withServer { server in
            let (result, request) = try await fetch(server, "-w", "%{http_code} %{num_redirects}", server.url("/redirect/2").absoluteString)
            #expect(result.stdoutText.hasSuffix("302 0"))
            #expect(request.uri == "/redirect/2")
            #expect(server.requestCount == 1)
        }
    }

    @Test func compressedSizeDownloadCountsBytesOnTheWire() async throws {
        try await HTTPBinServer.withServer { server in
            let raw = try await FerryProcess.run("-sS", server.url("/gzip-bytes/50000").absoluteString)
            let decoded = try await FerryProcess.run(
                "-sS", "--compressed", "-w", "\n%{size_download}", server.url("/gzip-bytes/50000").absoluteString)
            #expect(decoded.status == 0, "\(decoded)")
            let body = decoded.stdout.dropLast("\n\(raw.stdout.count)".utf8.count)
            #expect(Array(body) == TestBytes.pattern(count: 50000))
            #expect(decoded.stdoutText.hasSuffix("\n\(raw.stdout.count)"))
        }
    }

    @Test func timeoutInsideTheBodyKeepsWhatArrived() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sS", "-m", "0.8", server.url("/drip?numbytes=10&duration=30&delay=0").absoluteString)
            #expect(result.status == 28, "\(result)")
            #expect(!result.stdout.isEmpty && result.stdout.count < 10)
            #expect(result.stdout == TestBytes.pattern(count: result.stdout.count))
            #expect(result.stderrLines.count == 1)
            #expect(result.stderr.contains("with \(result.stdout.count) bytes received"), "\(result)")
        }
    }

    @Test func ipv6Literal() async throws {
        guard let server = try? HTTPBinServer(host: "::1") else { return }
        defer { server.shutdown() }
        let result = try await FerryProcess.run("-sS", "-w", "%{http_code}", server.url("/bytes/3").absoluteString)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == TestBytes.pattern(count: 3) + Array("200".utf8))
    }
}
