import Foundation
import TestSupport
import Testing

/// The built `ferry` binary against an independent httpbin server (SwiftNIO): what arrives on
/// standard output, in `-o` files and at the server, for transfers that succeed.
struct EndToEndTransferTests {
    @Test func bodyGoesToStandardOutputExactly() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", server.url("/bytes/70000").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == TestBytes.pattern(count: 70000))
            #expect(result.stderr.isEmpty)
        }
    }

    @Test func outputFileHoldsTheBodyAndStandardOutputStaysEmpty() async throws {
        let directory = try TemporaryDirectory()
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sS", "-o", directory.path("body"), server.url("/bytes/5000").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.isEmpty)
            #expect(directory.contents("body") == TestBytes.pattern(count: 5000))
        }
    }

    @Test func emptyBodyStillCreatesTheOutputFile() async throws {
        let directory = try TemporaryDirectory()
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-o", directory.path("empty"), server.url("/bytes/0").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(directory.contents("empty") == [])
        }
    }

    @Test func eachOutputPairsWithTheNextURL() async throws {
        let directory = try TemporaryDirectory()
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sS", server.url("/bytes/10").absoluteString, "-o", directory.path("a"),
                server.url("/bytes/300").absoluteString, "-o", directory.path("b"))
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.isEmpty)
            #expect(directory.contents("a") == TestBytes.pattern(count: 10))
            #expect(directory.contents("b") == TestBytes.pattern(count: 300))
        }
    }

    @Test func severalURLsShareOneConnection() async throws {
        try await HTTPBinServer.withServer { server in
            let url = server.url("/bytes/3").absoluteString
            let result = try await FerryProcess.run("-sS", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
                                                    "-w", "%{num_connects}\\n", url, url, url)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "1\n0\n0\n")
            #expect(server.connectionCount == 1)
            #expect(server.requestCount == 3)
        }
    }

    @Test func parallelTransfersAllSucceed() async throws {
        try await HTTPBinServer.withServer { server in
            let urls = (1...5).map { server.url("/delay/0.2?n=\($0)").absoluteString }
            let outputs = urls.flatMap { _ in ["-o", "/dev/null"] }
            let result = try await FerryProcess.run(["-sS", "-Z", "-w", "%{http_code}\\n"] + outputs + urls)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == String(repeating: "200\n", count: 5))
            #expect(server.requestCount == 5)
        }
    }

    @Test func includePutsTheHeadBeforeTheBodyWithCRLF() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-i", server.url("/bytes/4").absoluteString)
            #expect(result.status == 0, "\(result)")
            let text = result.stdout
            let separator = Array("\r\n\r\n".utf8)
            let end = try #require(text.firstRange(of: separator))
            let head = String(decoding: text[..<end.lowerBound], as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(head.lowercased().contains("\r\ncontent-length: 4"))
            #expect(!head.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "bare LF in head")
            #expect(Array(text[end.upperBound...]) == TestBytes.pattern(count: 4))
        }
    }

    @Test func headSendsHEADAndPrintsOnlyTheHead() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-I", server.url("/bytes/100").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(result.stdoutText.hasSuffix("\r\n\r\n"))
            #expect(server.lastRequest?.method == "HEAD")
            // With -X, the method goes, and still only the head is written, as curl's.
            let posted = try await FerryProcess.run("-sS", "-I", "-X", "POST", server.url("/anything").absoluteString)
            #expect(posted.status == 0, "\(posted)")
            #expect(posted.stdoutText.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(posted.stdoutText.hasSuffix("\r\n\r\n"), "no body: \(posted.stdoutText)")
            #expect(server.lastRequest?.method == "POST")
        }
    }

    @Test func methodAndBodyReachTheServer() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-X", "PUT", "-d", "x", server.url("/anything").absoluteString)
            #expect(result.status == 0, "\(result)")
            let echo = jsonObject(result.stdout)
            #expect(echo["method"] as? String == "PUT")
            #expect(echo["data"] as? String == "x")
        }
    }

    @Test func formPiecesAreJoinedWithAmpersandAndPosted() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-d", "a=1", "-d", "b=2", server.url("/anything").absoluteString)
            let echo = jsonObject(result.stdout)
            #expect(echo["method"] as? String == "POST")
            #expect(echo["data"] as? String == "a=1&b=2")
            let headers = echo["headers"] as? [String: Any]
            #expect(headers?["Content-Type"] as? String == "application/x-www-form-urlencoded")
        }
    }

    @Test func dataBinaryFileIsSentByteForByte() async throws {
        let directory = try TemporaryDirectory()
        let content: [UInt8] = Array("line1\r\nline2\n\0end".utf8)
        try Data(content).write(to: directory.url.appendingPathComponent("payload"))
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sS", "--data-binary", "@" + directory.path("payload"), server.url("/echo").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == content)
            #expect(server.lastRequest?.method == "POST")
        }
    }

    @Test func jsonSetsContentTypeAndAccept() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "--json", "{\"a\":1}", server.url("/anything").absoluteString)
            let echo = jsonObject(result.stdout)
            #expect(echo["data"] as? String == "{\"a\":1}")
            let request = try #require(server.lastRequest)
            #expect(request.method == "POST")
            #expect(request.value(of: "Content-Type") == "application/json")
            #expect(request.value(of: "Accept") == "application/json")
        }
    }

    @Test func getPutsDataIntoThePercentEncodedQuery() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-G", "-d", "q=a b&x=é", server.url("/get").absoluteString)
            #expect(result.status == 0, "\(result)")
            let request = try #require(server.lastRequest)
            #expect(request.method == "GET")
            #expect(request.uri == "/get?q=a%20b&x=%C3%A9")
        }
    }

    @Test func extraHeaderArrivesAndEmptyHeaderRemovesADefault() async throws {
        try await HTTPBinServer.withServer { server in
            let url = server.url("/get").absoluteString
            _ = try await FerryProcess.run("-sS", "-o", "/dev/null", "-H", "X-A: 1", url)
            let first = try #require(server.lastRequest)
            #expect(first.value(of: "X-A") == "1")
            #expect(first.value(of: "User-Agent") != nil)
            _ = try await FerryProcess.run("-sS", "-o", "/dev/null", "-H", "User-Agent:", url)
            let second = try #require(server.lastRequest)
            #expect(second.value(of: "User-Agent") == nil)
        }
    }

    @Test func userAgentAndRefererArriveOnce() async throws {
        try await HTTPBinServer.withServer { server in
            let url = server.url("/get").absoluteString
            let result = try await FerryProcess.run("-sS", "-o", "/dev/null", "-A", "probe/2", "-e", "http://from.test/page", url)
            #expect(result.status == 0, "\(result)")
            let sent = try #require(server.lastRequest)
            #expect(sent.values(of: "User-Agent") == ["probe/2"])
            #expect(sent.values(of: "Referer") == ["http://from.test/page"])
            let none = try await FerryProcess.run("-sS", "-o", "/dev/null", "-A", "", url)
            #expect(none.status == 0, "\(none)")
            #expect(try #require(server.lastRequest).value(of: "User-Agent") == nil, "-A '' sends none, as curl")
        }
    }

    @Test("-e ';auto' with -L: each redirect's request names the page that redirected")
    func refererAutoFollowsRedirects() async throws {
        try await HTTPBinServer.withServer { server in
            let start = server.url("/redirect/2").absoluteString
            var components = try #require(URLComponents(string: start))
            components.user = "ada"
            components.password = "secret"
            components.fragment = "top"
            let withCredentials = try #require(components.string)
            let result = try await FerryProcess.run("-sS", "-L", "-e", "http://from.test/;auto", "-o", "/dev/null", withCredentials)
            #expect(result.status == 0, "\(result)")
            let heads = server.receivedRequests.suffix(3)
            #expect(heads.map(\.uri) == ["/redirect/2", "/redirect/1", "/get"])
            #expect(heads.map { $0.values(of: "Referer") } == [
                ["http://from.test/"], [start], [server.url("/redirect/1").absoluteString],
            ], "the page's user information and fragment are left out")
            // Alone, the first request has none; -v prints and sets it alike.
            server.resetCounters()
            let verbose = try await FerryProcess.run("-sS", "-v", "-L", "-e", ";auto", "-o", "/dev/null", server.url("/redirect/1").absoluteString)
            #expect(verbose.status == 0, "\(verbose)")
            #expect(server.receivedRequests.map { $0.values(of: "Referer") } == [[], [server.url("/redirect/1").absoluteString]])
            let printed = verbose.stderr
            #expect(printed.contains("> GET /get HTTP/1.1\r\n"), "\(printed)")
            #expect(printed.contains("> Referer: \(server.url("/redirect/1").absoluteString)\r\n"), "-v shows the Referer it set")
        }
    }

    @Test func compressedDecodesGzip() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "--compressed", server.url("/gzip").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(jsonObject(result.stdout)["method"] as? String == "GET")
            let encodings = server.lastRequest?.value(of: "Accept-Encoding") ?? ""
            #expect(encodings.contains("gzip"))
        }
    }

    @Test func withoutCompressedTheGzipBytesPassAsReceived() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", server.url("/gzip").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.starts(with: [0x1F, 0x8B]))
            #expect(server.lastRequest?.value(of: "Accept-Encoding") == nil)
            let decoded = try Zlib.decompress(result.stdout, format: .gzip)
            #expect(jsonObject(decoded)["method"] as? String == "GET")
        }
    }

    @Test func writeOutReportsCodeSizeAndURL() async throws {
        try await HTTPBinServer.withServer { server in
            let url = server.url("/bytes/123").absoluteString
            let result = try await FerryProcess.run(
                "-sS", "-o", "/dev/null", "-w", "%{http_code} %{size_download} %{url_effective}\\n", url)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "200 123 \(url)\n")
        }
    }

    @Test func failExitsTwentyTwoWithoutBody() async throws {
        try await HTTPBinServer.withServer { server in
            let url = server.url("/status/404").absoluteString
            let failing = try await FerryProcess.run("-sS", "-f", url)
            #expect(failing.status == 22, "\(failing)")
            #expect(failing.stdout.isEmpty)
            #expect(failing.stderrLines == ["ferry: (22) The requested URL returned error: 404"])
            let plain = try await FerryProcess.run("-sS", "-w", "%{http_code}", url)
            #expect(plain.status == 0, "\(plain)")
            #expect(plain.stdoutText == "404")
        }
    }

    @Test func verbosePrintsBothHeadsOnStandardError() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-v", server.url("/bytes/2").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == TestBytes.pattern(count: 2))
            let lines = result.stderrLines
            #expect(lines.contains("> GET /bytes/2 HTTP/1.1\r"))
            #expect(lines.contains { $0.hasPrefix("< HTTP/1.1 200") })
            #expect(lines.contains { $0.hasPrefix("* Connected to 127.0.0.1") })
        }
    }
}
