// Header injection through ferry's flags (issue 20): -b, -u, -U, -F, a URL and its user
// information, and -G data.
// Each hostile command line either stops with a clear message and exit code before a byte is
// sent, or sends the bytes escaped inside one well-formed request; a clean run follows against
// the same server, whose bytes must then hold nothing but well-formed requests, the clean one
// last.
//
// Proved elsewhere and not repeated: -H with CR, LF, NUL or a bad name (RequestBuilderTests,
// FerryToolTests), -X with a method that is not a token (FerryToolTests). ferry has no -A or
// -e: a User-Agent or Referer goes through -H and its checks.
import Testing
import TestSupport

@testable import ferry

@Suite("Header injection through ferry's command line")
struct CommandLineInjectionTests {
    private static let ok = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"

    /// Runs ferry with `arguments` (`URL` replaced by the server's base URL, `HOSTPORT` by its
    /// host and port), then a clean `ferry URL/clean`; returns the first run's exit code and
    /// standard error, and the well-formed requests the server received before the clean one.
    private func run(_ arguments: [String]) async throws -> (code: ExitCode, err: String, hostile: [ReceivedRequest]) {
        let server = try ScriptedServer(scripts: [[.readRequest, .send(Self.ok), .close]], extraConnections: .repeatLastScript)
        let base = server.baseURLString
        let captured = CapturedConsole()
        let resolved = arguments.map { $0.replacing("URL", with: base).replacing("HOSTPORT", with: "\(server.host):\(server.port)") }
        let code = await FerryTool.run(["-sS", "--noproxy", "*"] + resolved, console: captured.console)
        let err = captured.finish().err
        let clean = CapturedConsole()
        #expect(await FerryTool.run(["-sS", "--noproxy", "*", base + "/clean"], console: clean.console) == .ok)
        #expect(clean.finish().out == "ok")
        await server.shutdownGracefully()
        var received: [UInt8] = []
        for connection in 0..<server.acceptedConnections { received += server.receivedBytes(connection: connection) }
        let requests = try ReceivedRequests.parse(received)
        #expect(requests.last?.target == "/clean", "the clean request came last, whole")
        return (code, err, Array(requests.dropLast()))
    }

    @Test("a hostile flag stops ferry before a byte is sent, with a message naming the cause", arguments: [
        (["-b", "a=b\r\nX-Injected: 1", "URL/x"], ExitCode.usage, "ferry: option -b: header Cookie has a value with CR, LF, NUL"),
        (["-b", "a=b\u{0}c", "URL/x"], ExitCode.usage, "ferry: option -b: header Cookie has a value with CR, LF, NUL"),
        (["-u", "us\r\ner:pw", "URL/x"], ExitCode.usage, "ferry: option -u: Cannot send these credentials: Basic user name"),
        (["-u", "user:pw\nX-Injected: 1", "URL/x"], ExitCode.usage, "ferry: option -u: Cannot send these credentials: Basic password"),
        (["http://us%0D%0Aer:pw@HOSTPORT/x"], ExitCode.usage,
         "ferry: (2) URL user information: Cannot send these credentials: Basic user name"),
        (["-x", "URL", "-U", "u:p\r\nX-Injected: 1", "--noproxy", "", "http://origin.invalid/x"], ExitCode.usage,
         "ferry: (2) Cannot send these proxy credentials: Basic password holds a character that cannot be sent"),
        (["-F", "f=v;type=text/plain\r\nX-Injected: 1", "URL/x"], ExitCode.usage, "ferry: option -F"),
        (["URL/a\r\nX-Injected: 1"], ExitCode(rawValue: 3), "ferry: (3) URL using bad/illegal format or missing URL"),
    ])
    func refused(arguments: [String], code: ExitCode, message: String) async throws {
        let outcome = try await run(arguments)
        #expect(outcome.code == code, "\(outcome.err)")
        #expect(outcome.err.contains(message), "\(outcome.err)")
        #expect(outcome.hostile.isEmpty, "nothing but the clean request arrived")
    }

    @Test("-G data and -F names with CR and LF go out escaped, in one request")
    func escaped() async throws {
        let query = try await run(["-G", "-d", "q=a\r\nX-Injected: 1", "URL/x"])
        #expect(query.code == .ok, "\(query.err)")
        #expect(query.hostile.map(\.target) == ["/x?q=a%0D%0AX-Injected:%201"])
        let form = try await run(["-F", "n\r\nX-Injected: 1=v", "URL/x"])
        #expect(form.code == .ok, "\(form.err)")
        let body = String(decoding: try #require(form.hostile.first).body, as: UTF8.self)
        #expect(form.hostile.count == 1)
        #expect(body.contains("name=\"n%0D%0AX-Injected: 1\""), "\(body)")
        #expect(!body.contains("\r\nX-Injected"))
    }
}
