// The array a connection reads large bodies into: bytes from several reads gather in one
// array, in order, until it is full; what is handed over is exactly what was read.
#if canImport(Glibc)
import Glibc
#endif
@testable import FerryEngine
import FerryIO
import Testing
import TestSupport

@Suite("DirectBodyChunk: gathering body bytes over several reads")
struct DirectBodyChunkTests {
    /// A transport over one end of a non-blocking Unix socket pair, and the other end's fd.
    static func makeTransport() throws -> (Transport, peer: Socket) {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        try #require(socketpair(AF_UNIX, type, 0, &fds) == 0)
        return (Transport(socket: Socket(adopting: fds[0])), Socket(adopting: fds[1]))
    }

    static func send(_ bytes: ArraySlice<UInt8>, to peer: Socket) throws {
        let written = bytes.withUnsafeBytes { Glibc.write(peer.fd, $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
    }

    @Test("three writes fill one array in order, which is then handed over whole, leaving the chunk empty")
    func gathersUntilFull() throws {
        let (transport, peer) = try Self.makeTransport()
        defer { transport.close() }
        let body = TestBytes.pattern(count: 30_000)
        var chunk = DirectBodyChunk()
        #expect(chunk.isEmpty && chunk.room == 0)
        chunk.start(size: body.count, reusing: nil)
        for range in [0..<10_000, 10_000..<25_000, 25_000..<30_000] {
            try Self.send(body[range], to: peer)
            #expect(try chunk.read(from: transport) == .processed(range.count))
            #expect(chunk.room == body.count - range.upperBound)
        }
        #expect(chunk.reads == 3)
        let taken = chunk.take()
        #expect(taken == body)
        #expect(chunk.reads == 0)
        #expect(chunk.isEmpty && chunk.room == 0)
    }

    @Test("a chunk reads no more than its size, leaving the next bytes in the socket")
    func readsNoMoreThanItsSize() throws {
        let (transport, peer) = try Self.makeTransport()
        defer { transport.close() }
        let bytes = TestBytes.pattern(count: 5_000)
        try Self.send(bytes[...], to: peer)
        var chunk = DirectBodyChunk()
        chunk.start(size: 3_000, reusing: nil)
        #expect(try chunk.read(from: transport) == .processed(3_000))
        #expect(chunk.take() == Array(bytes[..<3_000]))
        chunk.start(size: 2_000, reusing: nil)
        #expect(try chunk.read(from: transport) == .processed(2_000))
        #expect(chunk.take() == Array(bytes[3_000...]))
    }

    @Test("an empty array large enough is read into; one too small or not empty is not")
    func reusesAnEmptyLargeEnoughArray() throws {
        let (transport, peer) = try Self.makeTransport()
        defer { transport.close() }
        var spare = [UInt8]()
        spare.reserveCapacity(8_192)
        let address = spare.withUnsafeBufferPointer { $0.baseAddress }
        var chunk = DirectBodyChunk()
        chunk.start(size: 8_000, reusing: consume spare)
        try Self.send(TestBytes.pattern(count: 8_000)[...], to: peer)
        #expect(try chunk.read(from: transport) == .processed(8_000))
        let taken = chunk.take()
        #expect(taken.withUnsafeBufferPointer { $0.baseAddress } == address, "the spare's memory carried the bytes")
        #expect(taken == TestBytes.pattern(count: 8_000))

        var small = [UInt8]()
        small.reserveCapacity(100)
        chunk.start(size: 1_000, reusing: small)
        try Self.send(TestBytes.pattern(count: 1_000)[...], to: peer)
        #expect(try chunk.read(from: transport) == .processed(1_000))
        #expect(chunk.take() == TestBytes.pattern(count: 1_000))
        #expect(small.capacity < 1_000 && small.isEmpty, "the caller's too-small array is untouched")

        let full: [UInt8] = [1, 2, 3]
        chunk.start(size: 2, reusing: full)
        try Self.send([9, 9][...], to: peer)
        #expect(try chunk.read(from: transport) == .processed(2))
        #expect(chunk.take() == [9, 9])
        #expect(full == [1, 2, 3], "an array holding bytes is never written into")
    }

    @Test("a chunk handed over mostly empty is copied into an array of its own size")
    func shortChunkIsCopiedSmall() throws {
        let (transport, peer) = try Self.makeTransport()
        defer { transport.close() }
        var chunk = DirectBodyChunk()
        chunk.start(size: 256 * 1024, reusing: nil)
        try Self.send(TestBytes.pattern(count: 1_000)[...], to: peer)
        #expect(try chunk.read(from: transport) == .processed(1_000))
        let taken = chunk.take()
        #expect(taken == TestBytes.pattern(count: 1_000))
        #expect(taken.capacity < 4 * 1_000)
    }
}
