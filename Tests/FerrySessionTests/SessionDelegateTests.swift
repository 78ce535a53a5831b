// SessionTaskDelegate: call order, the queue calls run on, the head as sent, upload
// progress, and the metrics (ordered timings, byte counts) arriving before the call returns.
import Foundation
import HTTPTypes
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session task delegate")
struct SessionDelegateTests {
    @Test("head sent, response, metrics: in that order, on the delegate queue, before data(for:) returns")
    func orderAndQueue() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "order.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            #expect(session.delegateQueue === queue)
            let delegate = RecordingDelegate(queue: queue)
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/get")), delegate: delegate)
            // Read right after the return: nothing may still be in flight on the queue.
            #expect(delegate.names == ["head", "response", "metrics", "complete"])
            #expect(delegate.offQueueCalls == 0)
            for case .response(let seen) in delegate.events { #expect(seen == response) }
        }
    }

    @Test("the session's own delegate queue is used when none is given")
    func defaultQueue() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: session.delegateQueue)
            _ = try await session.data(for: NetworkRequest(url: server.url("/get")), delegate: delegate)
            #expect(delegate.names == ["head", "response", "metrics", "complete"])
            #expect(delegate.offQueueCalls == 0)
        }
    }

    @Test("the head as sent has Host and Content-Length for a POST, and the connection facts")
    func sentHead() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "head.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            let request = NetworkRequest(url: server.url("/post?x=1"), method: .post)
            _ = try await session.upload(for: request, from: .bytes(Array(repeating: 65, count: 1234)), delegate: delegate)
            let head = try #require(delegate.sentHead)
            #expect(head.method == .post)
            #expect(head.path == "/post?x=1")
            #expect(head.headerFields[HTTPField.Name("Host")!] == "127.0.0.1:\(server.port)")
            #expect(head.headerFields[.contentLength] == "1234")
            #expect(head.headerFields[.userAgent] == "Ferry/0.1")
            for case .sentHead(_, let connection) in delegate.events {
                #expect(connection.remoteAddress == "127.0.0.1")
                #expect(connection.remotePort == server.port)
                #expect(connection.isReused == false)
            }
            // What the delegate saw is what the server received.
            let received = try #require(server.lastRequest)
            #expect(received.value(of: "Content-Length") == "1234")
            #expect(received.value(of: "Host") == head.headerFields[HTTPField.Name("Host")!])
        }
    }

    @Test("a chunked upload's head says Transfer-Encoding: chunked", arguments: [false, true])
    func sentHeadChunked(known: Bool) async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "chunked.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            let body = TestBytes.pattern(count: 10_000)
            let request = NetworkRequest(url: server.url("/post"), method: .post)
            let length: Int64? = known ? Int64(body.count) : nil
            _ = try await session.upload(for: request, from: .stream(SessionTest.stream([body]), length: length), delegate: delegate)
            let head = try #require(delegate.sentHead)
            if known {
                #expect(head.headerFields[.contentLength] == "10000")
                #expect(head.headerFields[.transferEncoding] == nil)
            } else {
                #expect(head.headerFields[.transferEncoding] == "chunked")
                #expect(head.headerFields[.contentLength] == nil)
            }
        }
    }

    @Test("upload progress adds up to the body size", arguments: [1, 100_000, 3 << 20])
    func uploadProgress(size: Int) async throws {
        let file = SessionTest.temporaryURL("progress.bin")
        try Data(TestBytes.pattern(count: size)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "progress.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            let request = NetworkRequest(url: server.url("/echo"), method: .post)
            let (data, _) = try await session.upload(for: request, from: .file(file), delegate: delegate)
            #expect(data.count == size)
            var sum: Int64 = 0
            var lastTotal: Int64 = 0
            for case .sentBody(let bytes, let total, let expected) in delegate.events {
                sum += bytes
                #expect(total == sum, "totalBytesSent is the running sum")
                #expect(total > lastTotal)
                #expect(expected == Int64(size))
                lastTotal = total
            }
            #expect(sum == Int64(size))
            #expect(delegate.names.first == "head")
            #expect(delegate.names.suffix(2) == ["metrics", "complete"])
            #expect(delegate.metrics?.transactionMetrics.first?.requestBodyBytesSent == Int64(size))
        }
    }

    @Test("metrics: ordered offsets, connection facts and byte counts")
    func metrics() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "metrics.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            let before = Date()
            let body = Array(repeating: UInt8(ascii: "b"), count: 777)
            let request = NetworkRequest(url: server.url("/echo"), method: .post)
            let (data, response) = try await session.upload(for: request, from: .bytes(body), delegate: delegate)
            #expect(data.count == 777)
            let metrics = try #require(delegate.metrics)
            #expect(metrics.redirectCount == 0)
            #expect(metrics.transactionMetrics.count == 1)
            let transaction = try #require(metrics.transactionMetrics.first)
            #expect(transaction.fetchStart >= before.addingTimeInterval(-1))
            let connectEnd = try #require(transaction.connectEnd)
            let requestStart = try #require(transaction.requestStart)
            let responseStart = try #require(transaction.responseStart)
            let responseEnd = try #require(transaction.responseEnd)
            #expect(connectEnd >= .zero)
            #expect(connectEnd <= requestStart)
            #expect(requestStart <= responseStart)
            #expect(responseStart <= responseEnd)
            #expect(responseEnd <= metrics.taskDuration)
            #expect(transaction.isReusedConnection == false)
            #expect(transaction.connectionsOpened == 1)
            #expect(transaction.remoteAddress == "127.0.0.1")
            #expect(transaction.remotePort == server.port)
            #expect(transaction.requestBodyBytesSent == 777)
            #expect(transaction.responseBodyBytesReceived == 777)
            #expect(transaction.responseBodyBytesDecoded == 777)
            // "POST /echo HTTP/1.1\r\n" plus fields: bigger than the request line, far below a KiB.
            #expect(transaction.requestHeaderBytesSent > 40)
            #expect(transaction.requestHeaderBytesSent < 1024)
            // The response head: status line, every field, the blank line.
            let fieldBytes = response.headerFields.reduce(0) { $0 + $1.name.rawName.utf8.count + 2 + $1.value.utf8.count + 2 }
            #expect(transaction.responseHeaderBytesReceived == Int64("HTTP/1.1 200 OK\r\n".utf8.count + fieldBytes + 2))
        }
    }

    @Test("a reused connection reports no connect time and isReused in the head callback")
    func reusedMetrics() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "reuse.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            _ = try await session.data(for: NetworkRequest(url: server.url("/get")))
            let delegate = RecordingDelegate(queue: queue)
            _ = try await session.data(for: NetworkRequest(url: server.url("/bytes/5000")), delegate: delegate)
            let transaction = try #require(delegate.metrics?.transactionMetrics.first)
            #expect(transaction.isReusedConnection)
            #expect(transaction.connectionsOpened == 0)
            #expect(transaction.connectEnd == nil)
            #expect(transaction.responseBodyBytesReceived == 5000)
            for case .sentHead(_, let connection) in delegate.events { #expect(connection.isReused) }
        }
    }

    @Test("a connection opened for a cancelled request and handed to a later one gives no negative offsets")
    func inheritedConnectionMetrics() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "inherit.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let abandoned = Task { await networkError { try await session.data(for: NetworkRequest(url: server.url("/get"))) } }
            abandoned.cancel()
            _ = await abandoned.value
            // If the cancel landed after the request started, the connection it asked for may
            // still open and park; give it the chance. (A task cancelled before the request
            // started opens nothing at all, and the next request must be just as correct.)
            _ = await waitUntil(timeout: .milliseconds(300)) { server.connectionCount > 0 }
            try await Task.sleep(for: .milliseconds(100))
            let delegate = RecordingDelegate(queue: queue)
            _ = try await session.data(for: NetworkRequest(url: server.url("/get")), delegate: delegate)
            let transaction = try #require(delegate.metrics?.transactionMetrics.first)
            if let connectEnd = transaction.connectEnd {
                #expect(connectEnd >= .zero, "connectEnd is an offset from this request's start")
            }
            if let lookup = transaction.domainLookupEnd {
                #expect(lookup >= .zero)
            }
        }
    }

    @Test("a failed request still delivers its metrics before the error is thrown")
    func metricsOnFailure() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "fail.delegate")
            let session = Session(configuration: SessionTest.configuration {
                $0.timeoutIntervalForRequest = .milliseconds(200)
            }, delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            let error = await networkError { try await session.data(for: NetworkRequest(url: server.url("/delay/30")), delegate: delegate) }
            #expect(error?.code == .timedOut)
            #expect(delegate.names == ["head", "metrics", "complete"])
            #expect(delegate.metrics?.transactionMetrics.first?.responseStart == nil)
        }
    }

    @Test("bytes(for:): metrics arrive before the body sequence ends")
    func metricsBeforeStreamEnds() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "stream.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            let (body, _) = try await session.bytes(for: NetworkRequest(url: server.url("/bytes/300000")), delegate: delegate)
            let data = try await body.collect()
            #expect(data.count == 300_000)
            #expect(delegate.names == ["head", "response", "metrics", "complete"])
            #expect(delegate.metrics?.transactionMetrics.first?.responseBodyBytesReceived == 300_000)
        }
    }

    @Test("download(for:to:): metrics arrive before it returns")
    func metricsBeforeDownloadReturns() async throws {
        let destination = SessionTest.temporaryURL("metrics.bin")
        defer { try? FileManager.default.removeItem(at: destination) }
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "download.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            _ = try await session.download(for: NetworkRequest(url: server.url("/bytes/4096")), to: destination, delegate: delegate)
            // A download delegate hears of the writes too, and of no temporary file: this one
            // is already where the caller wants it.
            #expect(delegate.names.filter { $0 != "wrote" } == ["head", "response", "metrics", "complete"])
            #expect(delegate.names.contains("wrote"))
            #expect(delegate.offQueueCalls == 0)
        }
    }
}
