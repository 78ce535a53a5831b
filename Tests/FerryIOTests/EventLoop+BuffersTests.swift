// EventLoop's spare buffers: a connection's buffers given back on the loop are what the next
// connection takes (no new allocation), sizes are never mixed, at most two of a size are kept,
// and all go once none was given back for a second.
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import FerryIO

@Suite("EventLoop spare buffers")
struct EventLoopBuffersTests {
    static func address(_ buffer: ConnectionBuffer) -> UInt {
        UInt(bitPattern: buffer.bytes.baseAddress)
    }

    @Test func aBufferGivenBackIsTheNextOneTakenOfItsSize() async throws {
        try await withLoop { loop in
            let (first, other, second) = try await loop.sync {
                let buffer = loop.takeBuffer(byteCount: 256 * 1024)
                let first = Self.address(buffer)
                buffer.bytes.storeBytes(of: 0xAB, as: UInt8.self)
                loop.giveBack(buffer)
                // Another size is never served from it: the spare is still there afterwards.
                let other = loop.takeBuffer(byteCount: 64 * 1024)
                let again = loop.takeBuffer(byteCount: 256 * 1024)
                #expect(again.bytes.count == 256 * 1024 && other.bytes.count == 64 * 1024)
                return (first, Self.address(other), Self.address(again))
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
                // The four stay alive while the new ones are taken, so a new allocation can
                // never reuse one of their addresses.
                return withExtendedLifetime(buffers) {
                    let again = (0..<4).map { _ in loop.takeBuffer(byteCount: 64 * 1024) }
                    return (given, again.map(Self.address), Self.address(loop.takeBuffer(byteCount: 256 * 1024)) == largeAddress)
                }
            }
            // Two spares come back; the other two takes are new allocations.
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

    @Test func sparesGoOnceNoneWasGivenBackForTheirLifetime() async throws {
        try await withLoop { loop in
            try await loop.sync {
                loop.giveBack(loop.takeBuffer(byteCount: 256 * 1024))
                #expect(loop.spares.count == 1 && loop.spares.trimTimer != nil)
            }
            // The loop's timer releases them (waited for, not slept on).
            var count = 1
            let deadline = ContinuousClock.now + .seconds(eventuallySeconds)
            while count > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                count = try await loop.sync { loop.spares.count }
            }
            #expect(count == 0)
            #expect(try await loop.sync { loop.spares.trimTimer == nil })
        }
    }

    @Test func trimmingWaitsForTheLastGiveBack() {
        var spares = SpareBuffers()
        let start = Deadline(uptimeNanoseconds: 1_000_000_000)
        let idle = spares.trim(at: start)
        #expect(idle == nil, "nothing kept: no timer needed")
        let first = spares.keep(ConnectionBuffer(byteCount: 4096), at: start)
        // Another one given back later moves the release.
        let second = spares.keep(ConnectionBuffer(byteCount: 8192), at: start + .milliseconds(600))
        #expect(first && second)
        let early = spares.trim(at: start + SpareBuffers.lifetime)
        #expect(early == start + .milliseconds(600) + SpareBuffers.lifetime)
        #expect(spares.count == 2)
        let due = spares.trim(at: start + .milliseconds(600) + SpareBuffers.lifetime)
        #expect(due == nil)
        #expect(spares.count == 0)
        let taken = spares.take(byteCount: 4096)
        #expect(taken == nil)
    }

    @Test func largeBuffersAreMappedAndEveryBufferIsWritableToItsEnd() {
        let small = ConnectionBuffer(byteCount: 64 * 1024)
        let large = ConnectionBuffer(byteCount: 256 * 1024)
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        #expect(UInt(bitPattern: large.bytes.baseAddress) % pageSize == 0, "a mapping starts on a page")
        #expect(UInt(bitPattern: small.bytes.baseAddress) % 16 == 0)
        small.bytes.storeBytes(of: 1, toByteOffset: small.bytes.count - 1, as: UInt8.self)
        large.bytes.storeBytes(of: 1, toByteOffset: large.bytes.count - 1, as: UInt8.self)
    }
}

/// Hands a loop-confined value to the test's thread; the test uses it where the loop does not.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
