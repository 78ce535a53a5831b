import Foundation
import TestSupport
import Testing

/// `ferry --proto` and `--proto-redir`, as curl's: a refused protocol exits 1 before any
/// connection is made; a redirect to a refused protocol is not followed.
struct EndToEndProtocolTests {
    @Test func protoHTTPSRefusesPlainHTTPBeforeConnecting() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "--proto", "=https", server.url("/get").absoluteString)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderrLines.contains { $0.contains("transport security policy refuses plain http") }, "\(result.stderr)")
            #expect(server.requestCount == 0)
        }
    }

    @Test func protoRedirHTTPSStopsAtTheRedirect() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sSL", "--proto-redir", "-all,https", "-o", "/dev/null",
                                                    server.url("/redirect/1").absoluteString)
            #expect(result.status == 1, "\(result)")
            #expect(server.requestCount == 1, "the first request went; its redirect did not")
        }
    }

    @Test func protoAllowingHTTPChangesNothing() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "--proto", "-all,+http,+https", "-o", "/dev/null", server.url("/get").absoluteString)
            #expect(result.status == 0, "\(result)")
            let refused = try await FerryProcess.run("-sS", "--proto", "=http", server.url("/get").absoluteString)
            #expect(refused.status == 2, "a list without https is refused as usage: \(refused)")
        }
    }

    @Test func aProxyThatIsNotAURLIsRefusedNotIgnored() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await FerryProcess.run("-sS", "-x", "http://[::1", server.url("/get").absoluteString)
            #expect(result.status == 2, "\(result)")
            #expect(server.requestCount == 0, "the request must not go direct")
        }
    }
}
