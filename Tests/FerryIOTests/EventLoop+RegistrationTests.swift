import Synchronization
import Testing

@testable import FerryIO

#if canImport(Glibc)
import Glibc
#endif

@Suite("EventLoop registration")
struct EventLoopRegistrationTests {
    @Test("readable fires when the peer writes; writable fires on a socket with room")
    func readableAndWritable() async throws {
        try await withLoop { loop in
            let (a, b) = try makeSocketPair()
            let received = Latch<[UInt8]>()
            let writable = Latch<Void>()
            try await loop.sync {
                let handler = ClosureHandler()
                handler.onReadable = {
                    if let bytes = try? a.read(count: 64), !bytes.isEmpty {
                        received.fulfill(bytes)
                        loop.deregister(fd: a.fd)
                    }
                }
                try loop.register(fd: a.fd, interest: .read, handler: handler)
                let writer = ClosureHandler()
                writer.onWritable = {
                    writable.fulfill(())
                    loop.deregister(fd: b.fd)
                }
                try loop.register(fd: b.fd, interest: .write, handler: writer)
            }
            #expect(await writable.wait() != nil)
            #expect(try b.write(Array("hello".utf8)) == .processed(5))
            #expect(await received.wait() == Array("hello".utf8))
            #expect(try await loop.sync { loop.registeredCount } == 0)
        }
    }

    @Test("modify switches interest from read to write")
    func modifyInterest() async throws {
        try await withLoop { loop in
            let (a, _b) = try makeSocketPair()
            let calls = Latch<String>()
            try await loop.sync {
                let handler = ClosureHandler()
                handler.onReadable = { calls.fulfill("readable") }
                handler.onWritable = {
                    calls.fulfill("writable")
                    loop.deregister(fd: a.fd)
                }
                // Nothing to read: only the switch to .write can produce a call.
                try loop.register(fd: a.fd, interest: .read, handler: handler)
                try loop.modify(fd: a.fd, interest: .write)
            }
            #expect(await calls.wait() == "writable")
            withExtendedLifetime(_b) {}
        }
    }

    @Test("modify and register report epoll errors as SystemError")
    func registrationErrors() async throws {
        try await withLoop { loop in
            let (a, _b) = try makeSocketPair()
            let errors = try await loop.sync { () -> [Int32] in
                var codes: [Int32] = []
                do { try loop.modify(fd: a.fd, interest: .read) } catch let error as SystemError { codes.append(error.errno) }
                try loop.register(fd: a.fd, interest: .read, handler: ClosureHandler())
                do { try loop.register(fd: a.fd, interest: .read, handler: ClosureHandler()) } catch let error as SystemError {
                    codes.append(error.errno)
                }
                loop.deregister(fd: a.fd)
                loop.deregister(fd: a.fd)  // twice is harmless
                return codes
            }
            #expect(errors == [ENOENT, EEXIST])
            withExtendedLifetime(_b) {}
        }
    }

    @Test("hangup fires when the peer closes; the handler reads EOF")
    func hangupOnPeerClose() async throws {
        try await withLoop { loop in
            let (a, b) = try makeSocketPair()
            let outcome = Latch<String>()
            try await loop.sync {
                let handler = ClosureHandler()
                let finish = { (who: String) in
                    // Level-triggered: learn the cause by reading, then stop watching.
                    if case .processed(0)? = try? a.read(count: 8).map({ IOResult.processed($0.count) }) {
                        outcome.fulfill("EOF via \(who)")
                        loop.deregister(fd: a.fd)
                    }
                }
                handler.onReadable = { finish("readable") }
                handler.onHangup = { finish("hangup") }
                try loop.register(fd: a.fd, interest: .read, handler: handler)
            }
            b.close()
            let result = try #require(await outcome.wait())
            #expect(result.hasPrefix("EOF"))
        }
    }

    @Test("a handler that closes another registered fd during dispatch stops its callbacks")
    func closeOtherDuringDispatch() async throws {
        try await withLoop { loop in
            let (a, peerA) = try makeSocketPair()
            let (b, peerB) = try makeSocketPair()
            let calls = Recorder<String>()
            let done = Latch<Void>()
            try await loop.sync {
                let first = ClosureHandler()
                let second = ClosureHandler()
                // Whichever fires first closes both: the other must never be called, even if
                // its event was collected in the same epoll_wait batch.
                let closeBoth = { (name: String) in
                    calls.append(name)
                    loop.deregister(fd: a.fd)
                    loop.deregister(fd: b.fd)
                    a.close()
                    b.close()
                    // Reopen: the new sockets usually get the same numbers. With no data
                    // written to them, any call to these handlers is a stale event.
                    if let (c, peerC) = try? makeSocketPair() {
                        let stale = ClosureHandler()
                        stale.onReadable = { calls.append("stale") }
                        try? loop.register(fd: c.fd, interest: .read, handler: stale)
                        try? loop.register(fd: peerC.fd, interest: .read, handler: stale)
                        loop.execute {
                            loop.deregister(fd: c.fd)
                            loop.deregister(fd: peerC.fd)
                            c.close()
                            peerC.close()
                            done.fulfill(())
                        }
                    }
                }
                first.onReadable = { closeBoth("a") }
                second.onReadable = { closeBoth("b") }
                try loop.register(fd: a.fd, interest: .read, handler: first)
                try loop.register(fd: b.fd, interest: .read, handler: second)
                _ = try peerA.write([1])
                _ = try peerB.write([2])
            }
            #expect(await done.wait() != nil)
            _ = try await loop.sync { 0 }
            #expect(calls.values.count == 1, "\(calls.values)")
        }
    }

    @Test("a reused fd number does not receive the old registration's events")
    func reusedDescriptorNumber() async throws {
        try await withLoop { loop in
            let (a, peerA) = try makeSocketPair()
            let calls = Recorder<String>()
            let done = Latch<Void>()
            try await loop.sync {
                let old = ClosureHandler()
                old.onReadable = {
                    calls.append("old")
                    // Replace the fd with a fresh socket that usually gets the same number.
                    let number = a.fd
                    loop.deregister(fd: number)
                    a.close()
                    guard let (c, peerC) = try? makeSocketPair() else { return }
                    let new = ClosureHandler()
                    new.onReadable = {
                        calls.append("new")
                        loop.deregister(fd: c.fd)
                        c.close()
                        peerC.close()
                        done.fulfill(())
                    }
                    try? loop.register(fd: c.fd, interest: .read, handler: new)
                    _ = try? peerC.write([9])
                }
                try loop.register(fd: a.fd, interest: .read, handler: old)
                _ = try peerA.write([1])
            }
            #expect(await done.wait() != nil)
            #expect(calls.values == ["old", "new"])
        }
    }

    @Test("a descriptor handed from one handler to the next in one turn reaches only the new one")
    func handOverInOneTurn() async throws {
        try await withLoop { loop in
            let (a, b) = try makeSocketPair()
            let calls = Recorder<String>()
            let received = Latch<Void>()
            try await loop.sync {
                let old = ClosureHandler()
                old.onReadable = { calls.append("old") }
                try loop.register(fd: a.fd, interest: .read, handler: old)
                // The connector-to-TLS hand-over: deregistered and registered again at once.
                loop.deregister(fd: a.fd)
                let new = ClosureHandler()
                new.onReadable = {
                    _ = try? a.read(count: 64)
                    calls.append("new")
                    loop.deregister(fd: a.fd)
                    received.fulfill(())
                }
                try loop.register(fd: a.fd, interest: .read, handler: new)
            }
            #expect(try b.write([1]) == .processed(1))
            #expect(await received.wait() != nil)
            #expect(calls.values == ["new"])
        }
    }

    @Test("a descriptor deregistered and kept open leaves epoll before the next wait")
    func deregisteredLeavesEpoll() async throws {
        try await withLoop { loop in
            let (a, b) = try makeSocketPair()
            // Readable from the start, and level-triggered: had it stayed in epoll without a
            // handler, the loop would spin; registering it again later would fail with EEXIST.
            #expect(try b.write([1]) == .processed(1))
            let readable = Latch<Void>()
            try await loop.sync {
                let handler = ClosureHandler()
                handler.onReadable = {
                    loop.deregister(fd: a.fd)
                    readable.fulfill(())
                }
                try loop.register(fd: a.fd, interest: .read, handler: handler)
            }
            #expect(await readable.wait() != nil)
            // A later turn: the entry is gone, so this is a fresh ADD.
            let again = Latch<Void>()
            try await loop.sync {
                let handler = ClosureHandler()
                handler.onReadable = {
                    loop.deregister(fd: a.fd)
                    again.fulfill(())
                }
                try loop.register(fd: a.fd, interest: .read, handler: handler)
            }
            #expect(await again.wait() != nil)
            #expect(try await loop.sync { loop.registeredCount } == 0)
        }
    }

    @Test("a descriptor closed right after deregistering leaves nothing behind for the next one")
    func closedRightAfterDeregistering() async throws {
        try await withLoop { loop in
            let (a, b) = try makeSocketPair()
            // The next socket usually gets the closed one's number (other tests may take it
            // first): registering it must work either way, with no entry of the old one left.
            let (c, d) = try await loop.sync { () throws -> (Socket, Socket) in
                try loop.register(fd: a.fd, interest: .read, handler: ClosureHandler())
                loop.deregister(fd: a.fd, closing: true)
                a.close()
                b.close()
                return try makeSocketPair()
            }
            let readable = Latch<Void>()
            try await loop.sync {
                let handler = ClosureHandler()
                handler.onReadable = {
                    loop.deregister(fd: c.fd)
                    readable.fulfill(())
                }
                try loop.register(fd: c.fd, interest: .read, handler: handler)
            }
            #expect(try d.write([1]) == .processed(1))
            #expect(await readable.wait() != nil)
            #expect(try await loop.sync { loop.registeredCount } == 0)
        }
    }
}
