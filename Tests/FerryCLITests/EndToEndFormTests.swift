import Foundation
import TestSupport
import Testing

/// `-F` and `--form-string` through the built binary, against the independent HTTPBin server:
/// the parts it receives (heads fixed as curl 7.88 writes them), the exit codes, and the body
/// sent again after a 307 and a Digest challenge.
struct EndToEndFormTests {
    /// A directory with `a.txt` ("hello\nworld\n") and `data.bin` ("xyz").
    private func files() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try Data("hello\nworld\n".utf8).write(to: directory.url.appendingPathComponent("a.txt"))
        try Data("xyz".utf8).write(to: directory.url.appendingPathComponent("data.bin"))
        return directory
    }

    /// The parts of the body an echo route reported, split at the boundary of the
    /// Content-Type the server received.
    private func parts(echo bytes: [UInt8], _ request: RecordedRequestHead) throws -> [MultipartTestParser.Part] {
        let boundary = try #require(MultipartTestParser.boundary(ofContentType: request.value(of: "Content-Type")))
        let echo = jsonObject(bytes)
        let body = Array(try #require(echo["data"] as? String).utf8)
        #expect(request.value(of: "Content-Length") == String(body.count))
        #expect(echo["bodyLength"] as? Int == body.count)
        return try #require(MultipartTestParser.parts(of: body, boundary: boundary))
    }

    /// The parts of `formArguments`, as the server must receive them.
    private let formArguments = [
        "-F", "name=value", "-F", "f=@a.txt", "-F", "g=@data.bin;type=text/x-data;filename=renamed.dat",
        "-F", "t=<a.txt", "--form-string", "s=@a.txt;type=x/y", "-F", #"q="x;y";type=text/plain"#,
    ]
    private let expectedParts: [MultipartTestParser.Part] = [
        .init([#"Content-Disposition: form-data; name="name""#], "value"),
        .init([#"Content-Disposition: form-data; name="f"; filename="a.txt""#, "Content-Type: text/plain"], "hello\nworld\n"),
        .init([#"Content-Disposition: form-data; name="g"; filename="renamed.dat""#, "Content-Type: text/x-data"], "xyz"),
        .init([#"Content-Disposition: form-data; name="t""#], "hello\nworld\n"),
        .init([#"Content-Disposition: form-data; name="s""#], "@a.txt;type=x/y"),
        .init([#"Content-Disposition: form-data; name="q""#, "Content-Type: text/plain"], "x;y"),
    ]

    @Test func partsArriveInOrderWithCurlsHeads() async throws {
        let directory = try files()
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run(["-sS"] + formArguments + [server.url("/post").absoluteString], in: directory.url)
            #expect(result.status == 0, "\(result)")
            let request = try #require(server.lastRequest)
            #expect(request.method == "POST")
            #expect(request.value(of: "Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect(request.value(of: "Transfer-Encoding") == nil, "the length is known up front")
            #expect(try parts(echo: result.stdout, request) == expectedParts)
        }
    }

    @Test func redirect307SendsTheFormAgain() async throws {
        let directory = try files()
        try await HTTPBinServer.withServer { server in
            let url = server.url("/redirect-to?url=/post&status_code=307").absoluteString
            let result = try await FerryProcess.run(["-sSL", "-w", "\n%{num_redirects}"] + formArguments + [url], in: directory.url)
            #expect(result.status == 0, "\(result)")
            let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.last == "1")
            let requests = server.receivedRequests
            #expect(requests.map(\.method) == ["POST", "POST"])
            let lengths = requests.compactMap { $0.value(of: "Content-Length") }
            #expect(lengths.count == 2 && lengths[0] == lengths[1], "the same body both times: \(lengths)")
            let final = try #require(requests.last)
            #expect(try parts(echo: Array(result.stdout.dropLast(2)), final) == expectedParts)
        }
    }

    @Test func redirect307IsTheAnswerWithoutL() async throws {
        let directory = try files()
        try await HTTPBinServer.withServer { server in
            let url = server.url("/redirect-to?url=/post&status_code=307").absoluteString
            let result = try await FerryProcess.run(["-sS", "-w", "%{http_code}", "-F", "f=@a.txt", url], in: directory.url)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "307")
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test func digestChallengeSendsTheFormAgain() async throws {
        let directory = try files()
        try await HTTPBinServer.withServer { server in
            let url = server.url("/digest-auth/auth/user/pass/MD5").absoluteString
            let result = try await FerryProcess.run(
                ["-sS", "--digest", "-u", "user:pass", "-o", "/dev/null", "-w", "%{http_code}", "-F", "f=@a.txt", url], in: directory.url)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutText == "200", "a stream not given again would leave the 401 as the answer")
            #expect(server.receivedRequests.map(\.method) == ["POST", "POST"])
        }
    }

    @Test func verboseShowsTheMultipartHead() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-v", "-o", "/dev/null", "-F", "a=1", server.url("/post").absoluteString)
            #expect(result.status == 0, "\(result)")
            let lines = result.stderrLines
            #expect(lines.contains("> POST /post HTTP/1.1\r"), "\(result.stderr)")
            let type = try #require(lines.first { $0.hasPrefix("> Content-Type: ") })
            let sent = try #require(server.lastRequest?.value(of: "Content-Type"))
            #expect(type == "> Content-Type: \(sent)\r")
            #expect(sent.hasPrefix("multipart/form-data; boundary="))
            #expect(lines.contains { $0.hasPrefix("> Content-Length: ") }, "\(result.stderr)")
        }
    }

    @Test func missingFileIsReadErrorAndSendsNothing() async throws {
        try await HTTPBinServer.withServer { server in
            let url = server.url("/post").absoluteString
            let result = try await FerryProcess.run("-sS", "-F", "a=@/nonexistent/file.txt", url)
            #expect(result.status == 26, "\(result)")
            #expect(result.stderrLines == [
                "ferry: (26) Failed to open/read local data from file/application "
                    + "(Cannot add /nonexistent/file.txt to the multipart form: No such file or directory)",
            ])
            let silent = try await FerryProcess.run("-s", "-F", "a=</nonexistent/file.txt", url)
            #expect(silent.status == 26, "\(silent)")
            #expect(silent.stderr.isEmpty, "-s hides the line, as curl")
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func usageErrorsComeFirst() async throws {
        let both = try await FerryProcess.run("-sS", "-F", "a=@/nonexistent", "-d", "x", "http://127.0.0.1:9/")
        #expect(both.status == 2, "\(both)")
        #expect(both.stderrLines.first?.hasPrefix("ferry: You can only select one HTTP request method!") == true, "\(both)")
        let noEquals = try await FerryProcess.run("-sS", "-F", "nameonly", "http://127.0.0.1:9/")
        #expect(noEquals.status == 2, "\(noEquals)")
        #expect(noEquals.stderrLines.first?.hasPrefix("ferry: option -F: \"nameonly\" is not name=content") == true, "\(noEquals)")
    }
}
