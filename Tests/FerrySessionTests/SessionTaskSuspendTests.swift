// A task suspended before its response arrives: the head waits for resume(), and so does a
// response without a body, so a suspended task hears of no response (URLSession: a suspended
// task produces no callbacks) and never completes with one while it reports `.suspended`.
import FerryBase
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session tasks: suspended before the response")
struct SessionTaskSuspendTests {
    /// A data task resumed and at once suspended, whose server answers with `answer` only
    /// then; `body` runs once the answer's head is held.
    private func withHeldResponse(
        _ answer: [ScriptStep],
        _ body: (DataTask, RecordingDelegate, ScriptedServer, Session) async throws -> Void
    ) async throws {
        let suspended = AsyncEvent()
        let server = try ScriptedServer(scripts: [
            ConnectionScript([.readRequest, .waitUntil { suspended.isSet }] + answer + [.stallUntilClosed(limit: .seconds(30))]),
        ])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let delegate = RecordingDelegate(queue: session.delegateQueue)
        let task = session.dataTask(with: NetworkRequest(url: URL(string: "http://127.0.0.1:\(server.port)/")!))
        task.delegate = delegate
        task.resume()
        task.suspend()
        suspended.set()
        // The head arrived and reading stopped on it.
        #expect(await waitUntil { task.isHoldingResponseHeadForTests }, "the head is held")
        try await body(task, delegate, server, session)
    }

    @Test(arguments: [
        ("HTTP/1.1 204 No Content\r\n\r\n", ""),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "hello"),
    ])
    func theResponseWaitsForResume(response: String, body: String) async throws {
        try await withHeldResponse([.send(response)]) { task, delegate, _, session in
            session.delegateQueue.sync {}
            #expect(task.state == .suspended)
            #expect(task.response == nil)
            #expect(delegate.names == ["head"], "only the request's head was reported")

            task.resume()
            #expect(await waitUntil { delegate.completion != nil })
            #expect(delegate.completion == .some(nil))
            #expect(task.state == .completed)
            #expect(task.response?.statusCode == (body.isEmpty ? 204 : 200))
            #expect(delegate.receivedData == Data(body.utf8))
            let expected = body.isEmpty ? ["head", "response", "metrics", "complete"] : ["head", "response", "data", "metrics", "complete"]
            #expect(delegate.names == expected)
        }
    }

    @Test func aTaskCancelledWithItsHeadHeldEndsCancelled() async throws {
        try await withHeldResponse([.send("HTTP/1.1 204 No Content\r\n\r\n")]) { task, delegate, _, session in
            task.cancel()
            #expect(await waitUntil { delegate.completion != nil })
            #expect(delegate.completion??.code == .cancelled)
            #expect(task.response == nil, "the held response was never the task's")
            #expect(delegate.metrics?.transactionMetrics.first?.statusCode == 204, "but its exchange's metrics name it")
            task.resume()
            session.delegateQueue.sync {}
            #expect(!delegate.names.contains("response"), "a resume after the cancel delivers nothing")
        }
    }

    @Test func aRedirectToASuspendedTaskWaitsForResume() async throws {
        // The redirect's head is held too: the next request goes out only after resume().
        let answer: [ScriptStep] = [
            .send("HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n"),
            .readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
        ]
        try await withHeldResponse(answer) { task, delegate, server, _ in
            #expect(server.receivedRequestHeads(connection: 0).count == 1, "the redirect is not followed while suspended")
            task.resume()
            #expect(await waitUntil { delegate.completion != nil })
            #expect(delegate.completion == .some(nil))
            #expect(task.response?.statusCode == 200)
            #expect(delegate.receivedData == Data("ok".utf8))
            #expect(server.receivedRequestHeads(connection: 0).count == 2)
            #expect(task.currentRequest.url.path == "/next")
        }
    }
}
