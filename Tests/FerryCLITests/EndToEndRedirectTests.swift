import Foundation
import TestSupport
import Testing

/// `ferry` and redirects, as curl: not followed without `-L`; with it, followed up to
/// `--max-redirs` (exit 47 past it), every hop printed by `-v`, and `-w` naming the hops.
struct EndToEndRedirectTests {
    static let writeOut = "%{http_code} %{num_redirects} %{url_effective}"

    @Test func withoutLocationTheRedirectIsTheAnswer() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-o", "/dev/null", "-w", Self.writeOut, server.url("/redirect/2").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "302 0 \(server.url("/redirect/2").absoluteString)")
            #expect(server.requestCount == 1)
        }
    }

    @Test func locationFollowsEveryHop() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sSL", "-o", "/dev/null", "-w", Self.writeOut, server.url("/redirect/2").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "200 2 \(server.url("/get").absoluteString)")
            #expect(server.requestCount == 3)
        }
    }

    @Test func pastMaxRedirsItIsFortySeven() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sSL", "--max-redirs", "1", "-o", "/dev/null", "-w", Self.writeOut, server.url("/redirect/3").absoluteString)
            #expect(result.status == 47, "\(result)")
            #expect(result.stderrLines == ["ferry: (47) Maximum (1) redirects followed"])
            // As curl: the redirect it did not follow, and where it came from.
            #expect(result.stdoutText == "302 1 \(server.url("/redirect/2").absoluteString)")
        }
    }

    @Test("-L --max-redirs 0 fails on the first redirect (47), its head written by -i, no body")
    func maxRedirsZeroFollowsNone() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(
                "-sSiL", "--max-redirs", "0", "-w", Self.writeOut, server.url("/redirect-to?url=/get&status_code=302").absoluteString)
            #expect(result.status == 47, "\(result)")
            #expect(result.stderrLines == ["ferry: (47) Maximum (0) redirects followed"])
            #expect(result.stdoutText.hasPrefix("HTTP/1.1 302"), "\(result)")
            let target = server.url("/redirect-to?url=/get&status_code=302").absoluteString
            #expect(result.stdoutText.hasSuffix("\r\n\r\n302 0 \(target)"), "the head, then -w: no body\n\(result)")
            #expect(server.requestCount == 1)
        }
    }

    @Test("-L -i writes every hop's head, as curl, also when the chain fails")
    func includeWritesEveryHead() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sSiL", server.url("/redirect/2").absoluteString)
            #expect(result.status == 0, "\(result)")
            let statusLines = result.stdoutText.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/") }
            #expect(statusLines.map { $0.prefix(12) } == ["HTTP/1.1 302", "HTTP/1.1 302", "HTTP/1.1 200"], "\(result)")
            #expect(result.stdoutText.hasSuffix("}\n") || result.stdoutText.hasSuffix("}"), "the body follows the last head")

            let failed = try await FerryProcess.run("-sSiL", "--max-redirs", "1", server.url("/redirect/3").absoluteString)
            #expect(failed.status == 47, "\(failed)")
            let failedLines = failed.stdoutText.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/") }
            #expect(failedLines.map { $0.prefix(12) } == ["HTTP/1.1 302", "HTTP/1.1 302"], "the one followed and the one not\n\(failed)")
        }
    }

    @Test("-X with -L: every hop is sent with -X's method, as curl; the data goes again only on 307 and 308",
          arguments: [("POST", 302, false), ("POST", 303, false), ("PUT", 301, false), ("DELETE", 303, false),
                      ("POST", 307, true), ("PUT", 308, true)])
    func customMethodOnEveryHop(method: String, status: Int, keepsData: Bool) async throws {
        try await HTTPBinServer.withServer { server in
            let url = server.url("/redirect-to?url=/anything&status_code=\(status)").absoluteString
            let result = try await FerryProcess.run("-sSL", "-X", method, "-d", "abc", url)
            #expect(result.status == 0, "\(result)")
            let echo = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutText.utf8)) as? [String: Any])
            #expect(echo["method"] as? String == method, "\(result)")
            #expect(echo["data"] as? String == (keepsData ? "abc" : ""), "\(result)")
            let headers = try #require(echo["headers"] as? [String: Any])
            #expect((headers["Content-Type"] != nil) == keepsData, "\(headers)")
            #expect(server.requestCount == 2)
        }
    }

    @Test("-X with -L: a field -H typed goes on every hop, even one the redirect took the body from, as curl")
    func typedFieldsStayOnEveryHop() async throws {
        try await HTTPBinServer.withServer { server in
            let url = server.url("/redirect-to?url=/anything&status_code=302").absoluteString
            let result = try await FerryProcess.run("-sSL", "-X", "PATCH", "-H", "Content-Type: application/json", "-d", "{}", url)
            #expect(result.status == 0, "\(result)")
            let echo = jsonObject(Array(result.stdoutText.utf8))
            #expect(echo["method"] as? String == "PATCH" && echo["data"] as? String == "", "\(result)")
            #expect((echo["headers"] as? [String: Any])?["Content-Type"] as? String == "application/json", "\(result)")
        }
    }

    @Test("-O writes the body to a file named after the URL, in the current directory; a URL without a name is 23")
    func remoteNameWritesThere() async throws {
        try await HTTPBinServer.withServer { server in
            let directory = try TemporaryDirectory()
            let result = try await FerryProcess.run("-sS", "-O", server.url("/bytes/10?seed=1").absoluteString, in: directory.url)
            #expect(result.status == 0 && result.stdout.isEmpty, "\(result)")
            #expect(try Data(contentsOf: directory.url.appendingPathComponent("10")).count == 10)

            let nameless = try await FerryProcess.run("-sS", "-O", server.url("/").absoluteString, in: directory.url)
            #expect(nameless.status == 23, "\(nameless)")
            #expect(nameless.stderrLines == ["ferry: (23) Remote file name has no length!"], "\(nameless)")
            #expect(server.requestCount == 1, "nothing is fetched for a URL without a file name")
            let malformed = try await FerryProcess.run("-sS", "-O", "http://[bad/x.txt", in: directory.url)
            #expect(malformed.status == 3, "a URL that does not parse is 3, as curl\n\(malformed)")
        }
    }

    @Test("-OJ names the file as the server's Content-Disposition does (last component only) and never replaces one")
    func remoteHeaderNameNamesTheFile() async throws {
        try await HTTPBinServer.withServer { server in
            let directory = try TemporaryDirectory()
            let named = server.url("/response-headers?Content-Disposition=attachment%3B%20filename%3D%22..%2Fx.txt%22").absoluteString
            let first = try await FerryProcess.run("-sS", "-O", "-J", named, in: directory.url)
            #expect(first.status == 0, "\(first)")
            let written = try Data(contentsOf: directory.url.appendingPathComponent("x.txt"))
            #expect(!written.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("response-headers").path))

            let again = try await FerryProcess.run("-sS", "-OJ", named, in: directory.url)
            #expect(again.status == 23, "\(again)")
            #expect(again.stderr.contains("x.txt") && again.stderr.contains("File exists"), "\(again)")
            #expect(try Data(contentsOf: directory.url.appendingPathComponent("x.txt")) == written)

            // The server naming the URL's own name still names it: an existing file stays.
            let sameName = directory.url.appendingPathComponent("response-headers")
            try Data("keep".utf8).write(to: sameName)
            let same = server.url("/response-headers?Content-Disposition=attachment%3B%20filename%3Dresponse-headers").absoluteString
            let refused = try await FerryProcess.run("-sS", "-OJ", same, in: directory.url)
            #expect(refused.status == 23, "\(refused)")
            #expect(try Data(contentsOf: sameName) == Data("keep".utf8))

            for combination in [["-i"], ["-I"], ["-C", "-"]] {
                let usage = try await FerryProcess.run(["-sS", "-OJ"] + combination + [named], in: directory.url)
                #expect(usage.status == 2, "\(combination): \(usage)")
            }

            let plain = try await FerryProcess.run("-sS", "-OJ", server.url("/bytes/5").absoluteString, in: directory.url)
            #expect(plain.status == 0, "\(plain)")
            #expect(try Data(contentsOf: directory.url.appendingPathComponent("5")).count == 5, "no Content-Disposition: the URL's name")
        }
    }

    @Test("-D writes every head of the run to its file, each hop's with -L, the later transfers' appended, as curl")
    func dumpHeaderWritesEveryHead() async throws {
        try await HTTPBinServer.withServer { server in
            let directory = try TemporaryDirectory()
            let file = directory.url.appendingPathComponent("heads.txt").path
            try Data("old".utf8).write(to: URL(fileURLWithPath: file))
            let result = try await FerryProcess.run("-sSL", "-D", file, "-o", "/dev/null", "-o", "/dev/null",
                                                    server.url("/redirect/1").absoluteString, server.url("/get").absoluteString)
            #expect(result.status == 0 && result.stdout.isEmpty, "\(result)")
            let heads = try String(contentsOfFile: file, encoding: .utf8)
            let statusLines = heads.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/") }.map { $0.prefix(12) }
            #expect(statusLines == ["HTTP/1.1 302", "HTTP/1.1 200", "HTTP/1.1 200"], "\(heads)")
            #expect(heads.hasPrefix("HTTP/1.1 302") && heads.hasSuffix("\r\n\r\n"), "\(heads)")

            let stdout = try await FerryProcess.run("-sS", "-D", "-", server.url("/get").absoluteString)
            #expect(stdout.stdoutText.hasPrefix("HTTP/1.1 200") && stdout.stdoutText.hasSuffix("}\n"), "the head, then the body\n\(stdout)")

            // As curl, the file is truncated before the first transfer, even one that gets no head.
            let failed = try await FerryProcess.run("-sS", "-D", file, "http://127.0.0.1:1/")
            #expect(failed.status == 7, "\(failed)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)).isEmpty)

            let unwritable = try await FerryProcess.run("-sS", "-D", directory.url.path, "-o", "/dev/null", server.url("/get").absoluteString)
            #expect(unwritable.status == 23, "\(unwritable)")
            #expect(unwritable.stderr.contains(directory.url.path) && unwritable.stderr.contains("Is a directory"), "\(unwritable)")
        }
    }

    @Test("a redirect to a port nobody listens on: -w names the 302 and the URL that failed, as curl")
    func aFailedHopIsNamedByWriteOut() async throws {
        try await HTTPBinServer.withServer { server in
            let closed = "http://127.0.0.1:1/nowhere"
            let url = server.url("/redirect-to?url=\(closed)&status_code=302").absoluteString
            let result = try await FerryProcess.run("-sSL", "-o", "/dev/null", "-w", Self.writeOut, url)
            #expect(result.status == 7, "\(result)")
            #expect(result.stdoutText == "302 1 \(closed)")
        }
    }

    @Test("-v with its output on the same pipe: the response head comes before the body, as curl's")
    func verboseHeadComesBeforeTheBody() async throws {
        // Head and body in one write, as a small response comes: the order was a race (the
        // head came last in most runs), so several runs.
        let runs = 16
        let reply = ConnectionScript.reply("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nBODY-LINE\n", closeAfter: false)
        try await ScriptedServer.withServer(scripts: Array(repeating: reply, count: runs)) { server in
            for _ in 0..<runs {
                let result = try await CommandRunner.run(
                    "/bin/sh", ["-c", "\"$0\" -sSv \"$1\" 2>&1", FerryProcess.binary.path, server.url("/").absoluteString],
                    timeLimit: FerryProcess.timeLimit)
                #expect(result.status == 0, "\(result)")
                // (A CRLF is one Character: split at every kind of line end.)
                let lines = result.stdoutText.split(whereSeparator: \.isNewline).map(String.init)
                let head = try #require(lines.firstIndex { $0.hasPrefix("< HTTP/1.1 200") }, "\(result.stdoutText)")
                let body = try #require(lines.firstIndex { $0 == "BODY-LINE" }, "\(result.stdoutText)")
                #expect(head < body, "\(result.stdoutText)")
            }
        }
    }

    @Test func verboseShowsEveryResponseHead() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sSLv", "-o", "/dev/null", server.url("/redirect/1").absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stderrLines.filter { $0.hasPrefix("> GET ") }.count == 2, "\(result.stderr)")
            #expect(result.stderrLines.contains { $0.hasPrefix("< HTTP/1.1 302") }, "\(result.stderr)")
            #expect(result.stderrLines.contains { $0.hasPrefix("< HTTP/1.1 200") }, "\(result.stderr)")
        }
    }
}
