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
            let result = try await FerryProcess.run("-sSL", "--max-redirs", "1", "-o", "/dev/null", server.url("/redirect/3").absoluteString)
            #expect(result.status == 47, "\(result)")
            #expect(result.stderrLines == ["ferry: (47) Maximum (1) redirects followed"])
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
