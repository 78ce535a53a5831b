// The receive low-water mark goes up only while enough of a fast body remains beyond what the
// transport may hold, comes down as soon as it no longer fits, and is what the socket says.
#if canImport(Glibc)
import Glibc
#endif
@testable import FerryEngine
import FerryIO
import Testing

@Suite("ReceiveLowWaterMark: SO_RCVLOWAT while a large body arrives fast")
struct ReceiveLowWaterMarkTests {
    static let raised = Int64(ReceiveLowWaterMark.raisedValue)

    static func makeSocket() throws -> Socket {
        try Socket.listen(on: try #require(SocketAddress(ipAddress: "127.0.0.1", port: 0)))
    }

    /// The mark as the kernel has it.
    static func lowWater(of socket: Socket) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        let result = getsockopt(socket.fd, SOL_SOCKET, SO_RCVLOWAT, &value, &length)
        return result == 0 ? value : -1
    }

    @Test("a fast body with room for the mark raises it; the socket says so")
    func raisesWhenFastAndItFits() throws {
        let socket = try Self.makeSocket()
        defer { socket.close() }
        var mark = ReceiveLowWaterMark()
        #expect(Self.lowWater(of: socket) == 1)
        try mark.update(remaining: Self.raised + 1000, margin: 1000, fast: true, on: socket)
        #expect(mark.isRaised)
        #expect(Self.lowWater(of: socket) == ReceiveLowWaterMark.raisedValue)
        // Reads that do not fill a chunk leave it raised while it fits.
        try mark.update(remaining: Self.raised + 1000, margin: 1000, fast: false, on: socket)
        #expect(mark.isRaised)
    }

    @Test("a body not shown fast, or too short beyond the margin, never raises it")
    func staysDownOtherwise() throws {
        let socket = try Self.makeSocket()
        defer { socket.close() }
        var mark = ReceiveLowWaterMark()
        try mark.update(remaining: 1 << 30, margin: 0, fast: false, on: socket)
        #expect(!mark.isRaised)
        try mark.update(remaining: Self.raised + 999, margin: 1000, fast: true, on: socket)
        #expect(!mark.isRaised)
        #expect(Self.lowWater(of: socket) == 1)
    }

    @Test("once the rest of the body no longer fits, the mark comes down, and lowering is idempotent")
    func lowersBeforeTheTail() throws {
        let socket = try Self.makeSocket()
        defer { socket.close() }
        var mark = ReceiveLowWaterMark()
        try mark.update(remaining: .max, margin: 66_000, fast: true, on: socket)  // a body delimited by close
        #expect(mark.isRaised)
        try mark.update(remaining: Self.raised + 65_999, margin: 66_000, fast: true, on: socket)
        #expect(!mark.isRaised)
        #expect(Self.lowWater(of: socket) == 1)
        try mark.update(remaining: 1 << 20, margin: 0, fast: true, on: socket)
        try mark.lower(on: socket)
        try mark.lower(on: socket)
        #expect(!mark.isRaised)
        #expect(Self.lowWater(of: socket) == 1)
    }

    @Test("a closed socket's error is thrown, not swallowed")
    func failureIsThrown() throws {
        let socket = try Self.makeSocket()
        socket.close()
        var mark = ReceiveLowWaterMark()
        #expect(throws: SystemError.self) {
            try mark.update(remaining: 1 << 20, margin: 0, fast: true, on: socket)
        }
        #expect(!mark.isRaised)
    }
}
