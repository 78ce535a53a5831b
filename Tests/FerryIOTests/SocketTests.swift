import Testing

@testable import FerryIO

#if canImport(Glibc)
import Glibc
#endif

@Suite("Socket")
struct SocketTests {
    @Test("reading an empty non-blocking socket is wouldBlock, not an error")
    func readWouldBlock() async throws {
        let (a, _b) = try makeSocketPair()
        var buffer = [UInt8](repeating: 0, count: 16)
        let result = try buffer.withUnsafeMutableBytes { try a.read(into: $0) }
        #expect(result == .wouldBlock)
        withExtendedLifetime(_b) {}
    }

    @Test("reading after the peer closed returns 0 (EOF)")
    func readEOF() async throws {
        let (a, b) = try makeSocketPair()
        _ = try b.write([1, 2, 3])
        b.close()
        #expect(try a.read(count: 16) == [1, 2, 3])
        #expect(try a.read(count: 16) == [])
    }

    @Test("shutdownWrite sends EOF while the other direction still works")
    func shutdownWrite() async throws {
        let (a, b) = try makeSocketPair()
        try a.shutdownWrite()
        #expect(try b.read(count: 4) == [])
        #expect(try b.write([7]) == .processed(1))
        #expect(try a.read(count: 4) == [7])
    }

    @Test("writev gathers several buffers into one write, in order")
    func writevGathers() async throws {
        let (a, b) = try makeSocketPair()
        let head = Array("HEAD\r\n\r\n".utf8), empty: [UInt8] = [], body = Array("body".utf8)
        let written = try head.withUnsafeBytes { h in
            try empty.withUnsafeBytes { e in
                try body.withUnsafeBytes { bo in try a.writev([h, e, bo]) }
            }
        }
        #expect(written == .processed(head.count + body.count))
        #expect(try b.read(count: 64) == head + body)
        #expect(try a.writev([]) == .processed(0))
    }

    @Test("a tiny send buffer gives partial writes, then wouldBlock, then writable once drained")
    func partialWritesThenWritable() async throws {
        let (a, b) = try makeSocketPair()
        try a.setOption(SOL_SOCKET, SO_SNDBUF, 4096)
        let payload = [UInt8](repeating: 0x5A, count: 1 << 20)
        var sent = 0
        var sawPartial = false
        writing: while true {
            let result = try payload[sent...].withUnsafeBytes { try a.write($0) }
            switch result {
            case .processed(let n):
                if n < payload.count - sent { sawPartial = true }
                sent += n
            case .wouldBlock:
                break writing
            }
        }
        #expect(sawPartial)
        #expect(sent > 0 && sent < payload.count)

        try await withLoop { loop in
            let writable = Latch<Void>()
            try await loop.sync {
                let handler = ClosureHandler()
                handler.onWritable = {
                    writable.fulfill(())
                    loop.deregister(fd: a.fd)
                }
                try loop.register(fd: a.fd, interest: .write, handler: handler)
            }
            var drained = 0
            while drained < sent, let bytes = try b.read(count: 65_536) {
                drained += bytes.count
            }
            #expect(await writable.wait() != nil)
        }
    }

    @Test("writing to a closed peer throws EPIPE or ECONNRESET and raises no SIGPIPE")
    func writeToClosedPeer() async throws {
        // Unix socketpair: EPIPE at once.
        let (a, b) = try makeSocketPair()
        b.close()
        let error = #expect(throws: SystemError.self) { try a.write([1, 2, 3]) }
        #expect(error?.errno == EPIPE)
        let gathered = #expect(throws: SystemError.self) {
            try [UInt8]([1]).withUnsafeBytes { try a.writev([$0, $0]) }
        }
        #expect(gathered?.errno == EPIPE)

        // TCP: the first write may be accepted; the RST makes a later one fail.
        let listener = try Socket.listen(on: loopbackV4)
        let client = try Socket.connect(to: try listener.localAddress)
        let server = try await acceptBlocking(listener)
        server.close()
        var failure: SystemError?
        for _ in 0..<1_000 where failure == nil {
            do { _ = try client.write([0x41]) } catch let error as SystemError { failure = error }
            if failure == nil { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(failure?.errno == EPIPE || failure?.errno == ECONNRESET)
        // Reaching this line at all means SIGPIPE did not kill the process.
    }

    @Test("connecting to a closed 127.0.0.1 port fails with ECONNREFUSED")
    func connectRefused() async throws {
        let (holder, port) = try refusingLoopbackPort()
        defer { holder.close() }
        let error = await #expect(throws: SystemError.self) {
            let socket = try Socket.connect(to: loopbackV4.withPort(port))
            try await waitWritable(socket)
            try socket.finishConnect()
        }
        #expect(error?.errno == ECONNREFUSED)
        #expect(error?.syscall == "connect")
    }

    @Test("connect to a listening 127.0.0.1 socket; addresses match on both ends")
    func connectIPv4() async throws {
        try await connectRoundTrip(loopbackV4)
    }

    /// Whether a socket can listen on ::1 here (containers without IPv6 cannot).
    static var ipv6LoopbackAvailable: Bool {
        guard let listener = try? Socket.listen(on: loopbackV6) else { return false }
        listener.close()
        return true
    }

    @Test("connect to a listening ::1 socket", .enabled(if: ipv6LoopbackAvailable, "IPv6 loopback is unavailable here"))
    func connectIPv6() async throws {
        try await connectRoundTrip(loopbackV6)
    }

    @Test("an accepted socket is close-on-exec, non-blocking and has TCP_NODELAY")
    func acceptedSocketFlags() async throws {
        let listener = try Socket.listen(on: loopbackV4)
        let client = try Socket.connect(to: try listener.localAddress)
        try await waitWritable(client)
        try client.finishConnect()
        let server = try await acceptBlocking(listener)
        #expect(fcntl(server.fd, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(server.fd, F_GETFL) & O_NONBLOCK != 0)
        var noDelay: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(server.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, &length) == 0)
        #expect(noDelay != 0)
        // Non-blocking: nothing sent yet, so a read is wouldBlock rather than a hang.
        #expect(try server.read(count: 1) == nil)
        withExtendedLifetime(client) {}
    }

    @Test("close is idempotent and later calls fail with EBADF")
    func closeTwice() async throws {
        let (a, _b) = try makeSocketPair()
        a.close()
        a.close()
        #expect(a.fd == -1)
        let error = #expect(throws: SystemError.self) { try a.read(count: 1) }
        #expect(error?.errno == EBADF)
        withExtendedLifetime(_b) {}
    }

    @Test("SocketAddress parses and prints IPv4 and IPv6")
    func socketAddressDescription() async throws {
        let v4 = try #require(SocketAddress(ipAddress: "127.0.0.1", port: 80))
        #expect(v4.description == "127.0.0.1:80")
        #expect(v4.family == .inet)
        let v6 = try #require(SocketAddress(ipAddress: "::1", port: 8080))
        #expect(v6.description == "[::1]:8080")
        #expect(v6.family == .inet6 && v6.port == 8080)
        #expect(SocketAddress(ipAddress: "[2001:db8::1]", port: 1)?.description == "[2001:db8::1]:1")
        #expect(SocketAddress(ipAddress: "localhost", port: 1) == nil)
        #expect(SocketAddress(ipAddress: "1.2.3", port: 1) == nil)
        // Round trip through the C form.
        let copy = v6.withSockAddr { SocketAddress($0, length: $1) }
        #expect(copy == v6)
    }

    // MARK: - Helpers

    private func connectRoundTrip(_ loopback: SocketAddress) async throws {
        let listener = try Socket.listen(on: loopback)
        let target = try listener.localAddress
        #expect(target.port != 0 && target.family == loopback.family)
        let client = try Socket.connect(to: target)
        try await waitWritable(client)
        try client.finishConnect()
        let server = try await acceptBlocking(listener)
        #expect(try client.remoteAddress == target)
        #expect(try server.remoteAddress == client.localAddress)
        #expect(try client.write([1, 2, 3]) == .processed(3))
        var got: [UInt8]?
        for _ in 0..<1_000 where got == nil {
            got = try server.read(count: 8)
            if got == nil { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(got == [1, 2, 3])
    }
}

/// Polls (suspending in between) until `socket` is writable (its connect finished), within
/// the generous bound.
func waitWritable(_ socket: Socket) async throws {
    guard await pollReady(socket.fd, events: Int16(POLLOUT)) else { throw SystemError(errno: ETIMEDOUT, syscall: "poll") }
}

/// Accepts one connection, polling (suspending in between) until it arrives.
func acceptBlocking(_ listener: Socket) async throws -> Socket {
    guard await pollReady(listener.fd, events: Int16(POLLIN)) else { throw SystemError(errno: ETIMEDOUT, syscall: "poll") }
    guard case .processed(let socket) = try listener.accept() else {
        throw SystemError(errno: EAGAIN, syscall: "accept")
    }
    return socket
}
