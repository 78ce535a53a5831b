import Foundation
import Testing
import TestSupport

@testable import FerrySession

/// A finished request must not keep anything of the caller's alive: the engine's exchange, the
/// session's transfer and the caller's task delegate are released once it ends.
@Suite struct SessionLifetimeTests {
    final class Observer: SessionTaskDelegate, @unchecked Sendable {}

    @Test func taskDelegateIsReleasedAfterDataCompletes() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session()
            defer { session.invalidateAndCancel() }
            weak var released: Observer?
            do {
                let observer = Observer()
                released = observer
                let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/bytes/100")), delegate: observer)
                #expect(response.statusCode == 200)
            }
            #expect(await eventually { released == nil }, "the transfer or exchange still holds the delegate")
        }
    }

    @Test func taskDelegateIsReleasedAfterAStreamedBodyEnds() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session()
            defer { session.invalidateAndCancel() }
            weak var released: Observer?
            do {
                let observer = Observer()
                released = observer
                let (body, _) = try await session.bytes(for: NetworkRequest(url: server.url("/stream-bytes/300000")), delegate: observer)
                let data = try await body.collect()
                #expect(data.count == 300_000)
            }
            #expect(await eventually { released == nil }, "the transfer or exchange still holds the delegate")
        }
    }

    /// The loop thread lets go of the exchange a moment after the caller resumes.
    private func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }
}
