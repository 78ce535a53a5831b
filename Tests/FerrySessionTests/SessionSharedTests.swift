// `Session.shared`, as URLSession's: one session for simple requests, which its users cannot
// invalidate (each would otherwise end it for everyone else in the process).
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session.shared")
struct SessionSharedTests {
    /// The shared session reads its proxy from the environment: a test must not be routed
    /// through one.
    static let noProxyInTheEnvironment = ["http_proxy", "all_proxy", "ALL_PROXY"]
        .allSatisfy { ProcessInfo.processInfo.environment[$0] == nil }

    @Test(.enabled(if: noProxyInTheEnvironment, "a proxy in the environment would carry the request"))
    func itIsOneSessionThatInvalidatingLeavesWorking() async throws {
        #expect(Session.shared === Session.shared)
        #expect(Session.shared.delegate == nil)
        try await HTTPBinServer.withServer { server in
            let task = Session.shared.dataTask(with: NetworkRequest(url: server.url("/delay/0.2")))
            let outcome = Task { try await task.data() }
            #expect(await waitUntil { server.requestCount > 0 })
            // Ignored: the running task goes on, and so does the session.
            Session.shared.invalidateAndCancel()
            Session.shared.finishTasksAndInvalidate()
            let (_, response) = try await outcome.value
            #expect(response.statusCode == 200)
            #expect(task.error == nil)
            let (_, again) = try await Session.shared.data(for: NetworkRequest(url: server.url("/get")))
            #expect(again.statusCode == 200)
        }
    }
}
