// EventLoop's spare buffers: a connection's buffers given back on the loop are what the next
// connection takes (no new mapping), sizes are never mixed, and at most two of a size are kept.
import Testing

@testable import FerryIO

@Suite("EventLoop spare buffers")
struct EventLoopBuffersTests {
    static func address(_ buffer: MappedBuffer) -> UInt {
        UInt(bitPattern: buffer.bytes.baseAddress)
    }

    @Test func aBufferGivenBackIsTheNextOneTaken() async throws {
        try await withLoop { loop in
            let (first, second, other) = try await loop.sync {
                let buffer = loop.takeBuffer(byteCount: 256 * 1024)
                let first = Self.address(buffer)
                buffer.bytes.storeBytes(of: 0xAB, as: UInt8.self)
                loop.giveBack(buffer)
                let again = loop.takeBuffer(byteCount: 256 * 1024)
                // Another size is never served from it.
                let other = loop.takeBuffer(byteCount: 64 * 1024)
                #expect(again.bytes.count == 256 * 1024 && other.bytes.count == 64 * 1024)
                return (first, Self.address(again), Self.address(other))
            }
            #expect(first == second)
            #expect(other != first)
        }
    }

    @Test func atMostTwoOfEachSizeAreKept() async throws {
        try await withLoop { loop in
            let (given, takenBack, otherSize) = try await loop.sync {
                let buffers = (0..<4).map { _ in loop.takeBuffer(byteCount: 64 * 1024) }
                let large = loop.takeBuffer(byteCount: 256 * 1024)
                let given = Set(buffers.map(Self.address))
                buffers.forEach(loop.giveBack)
                // Two of 64 KiB kept already: a buffer of another size is still kept.
                let largeAddress = Self.address(large)
                loop.giveBack(large)
                let again = (0..<4).map { _ in loop.takeBuffer(byteCount: 64 * 1024) }
                return (given, again.map(Self.address), Self.address(loop.takeBuffer(byteCount: 256 * 1024)) == largeAddress)
            }
            // Two spares come back; the other two takes are new mappings.
            #expect(takenBack.filter(given.contains).count == 2)
            #expect(Set(takenBack).count == 4)
            #expect(otherSize)
        }
    }

    @Test func aBufferGivenBackOffTheLoopIsNotKept() async throws {
        try await withLoop { loop in
            let buffer = try await loop.sync { UncheckedBox(loop.takeBuffer(byteCount: 4096)) }
            let first = Self.address(buffer.value)
            // A connection released on another thread: its buffer is unmapped, never shared.
            loop.giveBack(buffer.value)
            let next = try await loop.sync { Self.address(loop.takeBuffer(byteCount: 4096)) }
            withExtendedLifetime(buffer) {}
            #expect(next != first)
        }
    }
}

/// Hands a loop-confined value to the test's thread; the test uses it where the loop does not.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
