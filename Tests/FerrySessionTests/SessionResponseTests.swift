// Response bodies: Content-Length, chunked and until-close framing through data(for:), a
// large body streamed through bytes(for:), and download(for:to:) into a file.
import FerryBase
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session response bodies")
struct SessionResponseTests {
    static let sizes = [0, 1, 251, 65_537, 1 << 20]

    @Test("/bytes/N arrives exactly (Content-Length)", arguments: sizes)
    func contentLengthBodies(size: Int) async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/bytes/\(size)")))
            #expect(response.expectedContentLength == Int64(size))
            #expect(response.mimeType == "application/octet-stream")
            #expect(data.count == size)
            #expect(TestBytes.firstMismatch(in: data) == nil)
        }
    }

    @Test("/stream-bytes/N?chunk_size=C arrives exactly (chunked)", arguments: [(0, 10), (1, 1), (65_537, 1000), (1 << 20, 65_536), (100_000, 7)])
    func chunkedBodies(size: Int, chunk: Int) async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/stream-bytes/\(size)?chunk_size=\(chunk)")
            let (data, response) = try await session.data(for: NetworkRequest(url: url))
            #expect(response.expectedContentLength == nil)
            #expect(data.count == size)
            #expect(TestBytes.firstMismatch(in: data) == nil)
        }
    }

    @Test("a body without framing ends when the server closes; the next request opens a connection")
    func untilCloseBody() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/no-length?size=70000")))
            #expect(response.expectedContentLength == nil)
            #expect(data.count == 70_000)
            #expect(TestBytes.firstMismatch(in: data) == nil)
            let (again, _) = try await session.data(for: NetworkRequest(url: server.url("/no-length?size=5")))
            #expect(Array(again) == TestBytes.pattern(count: 5))
            #expect(server.connectionCount == 2)
        }
    }

    @Test("bytes(for:) streams 20 MiB chunk by chunk with the exact total and pattern")
    func streamLargeBody() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let size = 20 * 1024 * 1024
            let (body, response) = try await session.bytes(for: NetworkRequest(url: server.url("/large/\(size)")))
            #expect(response.statusCode == 200)
            #expect(response.expectedContentLength == Int64(size))
            var total = 0
            var chunks = 0
            var mismatch: Int?
            for try await chunk in body {
                if mismatch == nil, let bad = TestBytes.firstMismatch(in: chunk, offset: total) { mismatch = total + bad }
                total += chunk.count
                chunks += 1
            }
            #expect(total == size)
            #expect(mismatch == nil)
            #expect(chunks > 1, "the body arrives in pieces, not collected whole")
        }
    }

    @Test("bytes(for:): chunks the consumer keeps stay intact while the memory of those it drops carries later ones")
    func keptChunksStayIntact() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let size = 8 * 1024 * 1024
            let (body, _) = try await session.bytes(for: NetworkRequest(url: server.url("/large/\(size)")))
            var kept: [(offset: Int, chunk: [UInt8])] = []
            var total = 0
            var index = 0
            for try await chunk in body {
                if index % 2 == 0 { kept.append((total, chunk)) }
                total += chunk.count
                index += 1
            }
            #expect(total == size)
            #expect(kept.count > 1)
            for (offset, chunk) in kept {
                #expect(TestBytes.firstMismatch(in: chunk, offset: offset) == nil, "chunk at \(offset) changed")
            }
        }
    }

    @Test("bytes(for:) ends a body whose last bytes filled the buffer while nobody read")
    func pauseOnLastSlice() async throws {
        try await HTTPBinServer.withServer { server in
            // A short idle timeout turns the hang into a prompt failure.
            let session = Session(configuration: SessionTest.configuration { $0.timeoutIntervalForRequest = .seconds(2) })
            defer { session.invalidateAndCancel() }
            // Exactly the buffer's high-water mark: the read that completes the body also pauses it.
            let size = ResponseBodyBuffer.highWaterMark
            let (body, _) = try await session.bytes(for: NetworkRequest(url: server.url("/bytes/\(size)")))
            #expect(await waitUntil { body.task.countOfBytesReceived == Int64(size) }, "the whole body waits, unread")
            let data = try await body.collect()
            #expect(data.count == size)
            #expect(TestBytes.firstMismatch(in: data) == nil)
        }
    }

    @Test("bytes(for:): a consumer that drains the buffer as the engine pauses, before the task records the pause, is not left waiting")
    func drainBeforeThePauseIsRecorded() async throws {
        // The body waits on the server until the pause is watched, so its first pause is.
        let size = 4 * 1024 * 1024
        let watching = AsyncEvent()
        let server = try ScriptedServer(scripts: [
            ConnectionScript([
                .readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n"),
                .waitUntil { watching.isSet }, .send(TestBytes.pattern(count: size)),
                .stallUntilClosed(limit: .seconds(30)),
            ]),
        ])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let (body, _) = try await session.bytes(for: NetworkRequest(url: URL(string: "http://127.0.0.1:\(server.port)/")!))
        let buffer = body.lifetime.buffer
        // The loop thread waits, between the buffer's pause and the task hearing of it, until
        // the consumer resumed the buffer.
        let paused = AsyncEvent()
        let drained = DispatchSemaphore(value: 0)
        buffer.observeNextPauseForTests {
            paused.set()
            _ = drained.wait(timeout: .now() + 30)
        }
        watching.set()
        #expect(await paused.wait(timeout: .seconds(30)), "the unread body fills the buffer")
        var iterator = body.makeAsyncIterator()
        var received: [UInt8] = []
        while buffer.isPaused, let chunk = try await iterator.next() { received += chunk }
        drained.signal()
        // Bounded: without the fix reading stays paused, and the wait below gives up after 30 s.
        let total = Locked(received.count)
        let reader = Task { [received] in
            var all = received
            var rest = body.makeAsyncIterator()
            while let chunk = try await rest.next() {
                all += chunk
                total.withLock { $0 = all.count }
            }
            return all
        }
        let arrived = await waitUntil { total.withLock { $0 } == size }
        #expect(arrived, "the rest of the body arrives")
        // Only a reader left waiting is stopped (its last next() may still be on its way to the end).
        if !arrived { reader.cancel() }
        let all = try await reader.value
        #expect(all.count == size)
        #expect(TestBytes.firstMismatch(in: all) == nil)
    }

    @Test("bytes(for:) collect(upTo:) refuses a body over its limit")
    func collectUpTo() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let (small, _) = try await session.bytes(for: NetworkRequest(url: server.url("/bytes/1000")))
            #expect(try await small.collect(upTo: 1000).count == 1000)
            let (large, _) = try await session.bytes(for: NetworkRequest(url: server.url("/large/3000000")))
            let error = await networkError { try await large.collect(upTo: 100_000) }
            #expect(error?.code == .dataLengthExceedsMaximum)
        }
    }

    @Test("download(for:to:) writes the body to the file")
    func download() async throws {
        let destination = SessionTest.temporaryURL("download.bin")
        defer { try? FileManager.default.removeItem(at: destination) }
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let size = 3 * 1024 * 1024 + 17
            let response = try await session.download(for: NetworkRequest(url: server.url("/large/\(size)")), to: destination)
            #expect(response.statusCode == 200)
            let written = try Data(contentsOf: destination)
            #expect(written.count == size)
            #expect(TestBytes.firstMismatch(in: written) == nil)
        }
    }

    @Test("download(for:to:) replaces an existing, longer file")
    func downloadTruncates() async throws {
        let destination = SessionTest.temporaryURL("download-old.bin")
        defer { try? FileManager.default.removeItem(at: destination) }
        try Data(repeating: 0xFF, count: 10_000).write(to: destination)
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            _ = try await session.download(for: NetworkRequest(url: server.url("/bytes/100")), to: destination)
            #expect(Array(try Data(contentsOf: destination)) == TestBytes.pattern(count: 100))
        }
    }

    @Test("download to a path that cannot be created fails with cannotCreateFile and sends nothing")
    func downloadUncreatable() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let destination = SessionTest.temporaryURL("no-such-dir").appendingPathComponent("file.bin")
            let request = NetworkRequest(url: server.url("/bytes/10"))
            let error = await networkError { try await session.download(for: request, to: destination) }
            #expect(error?.code == .cannotCreateFile)
            #expect(error?.failingURL == request.url)
            #expect(server.requestCount == 0)
        }
    }

    @Test("a failed download leaves the destination as it was (absent, or the old file) and no partial file beside it",
          arguments: [false, true])
    func failedDownloadLeavesTheDestination(existed: Bool) async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("partial.bin")
        if existed { try Data("old".utf8).write(to: destination) }
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.maximumResponseBodySize = 100_000
            })
            defer { session.invalidateAndCancel() }
            let request = NetworkRequest(url: server.url("/stream-bytes/1000000"))
            let error = await networkError { try await session.download(for: request, to: destination) }
            #expect(error?.code == .dataLengthExceedsMaximum)
        }
        #expect((try? Data(contentsOf: destination)) == (existed ? Data("old".utf8) : nil))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == (existed ? ["partial.bin"] : []))
    }

    @Test("special destinations: /dev/null is written in place and stays a device; a directory is refused before any request; a replaced file keeps its mode")
    func specialDestinations() async throws {
        let directory = try TemporaryDirectory()
        let existing = directory.url.appendingPathComponent("secret.bin")
        try Data("old".utf8).write(to: existing)
        #expect(chmod(existing.path, 0o600) == 0)
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let response = try await session.download(for: NetworkRequest(url: server.url("/bytes/100")), to: URL(fileURLWithPath: "/dev/null"))
            #expect(response.statusCode == 200)
            let error = await networkError { try await session.download(for: NetworkRequest(url: server.url("/bytes/10")), to: directory.url) }
            #expect(error?.code == .cannotCreateFile)
            #expect(server.requestCount == 1, "the refused directory sent nothing")
            _ = try await session.download(for: NetworkRequest(url: server.url("/bytes/10")), to: existing)
        }
        var info = stat()
        #expect(lstat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "/dev/null is still a device")
        #expect(lstat(existing.path, &info) == 0 && info.st_mode & 0o777 == 0o600, "the replaced file kept its mode")
        #expect(try Data(contentsOf: existing).count == 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["secret.bin"])
    }

    @Test("a symbolic link at the destination is replaced by the file, never written through; the mode is a new file's")
    func destinationSymlinkIsReplaced() async throws {
        let directory = try TemporaryDirectory()
        let victim = directory.url.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let destination = directory.url.appendingPathComponent("download.bin")
        try FileManager.default.createSymbolicLink(at: destination, withDestinationURL: victim)
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            _ = try await session.download(for: NetworkRequest(url: server.url("/bytes/100")), to: destination)
        }
        #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(try Data(contentsOf: destination).count == 100)
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
        #expect(mode & 0o044 != 0 || mode == 0o600, "0666 less the umask, not a secret's 0600: \(String(mode, radix: 8))")
    }
}
