// Runs one ConnectionScript on one accepted socket (on ScriptedServer's thread).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Internal: the steps' implementation for one connection.
struct ScriptConnection {
    private let core: ScriptedServerCore
    private let index: Int
    private var socket: BufferedSocket
    private var isOpen = true
    private var lastHead: MessageHead?

    init(core: ScriptedServerCore, fd: Int32, index: Int) {
        self.core = core
        self.index = index
        socket = BufferedSocket(fd: fd, wake: core.wakeRead, timeout: core.ioTimeout)
        socket.onRead = { [core] bytes in core.recordReceived(bytes, connection: index) }
    }

    /// Runs every step until one fails or the connection is closed, then closes it if still open.
    mutating func run(_ script: ConnectionScript) {
        for step in script.steps where isOpen {
            do {
                try perform(step)
            } catch .woken {
                break  // shutting down: not the client's fault
            } catch {
                core.recordMismatch("connection \(index): \(step): \(error)")
                break
            }
        }
        if isOpen { closeGracefully() }
    }

    private mutating func perform(_ step: ScriptStep) throws(BufferedSocket.Failure) {
        switch step.kind {
        case .readRequest:
            try readRequest()
        case .readHead:
            let head = try socket.readHead()
            lastHead = head
            core.recordHead(head, connection: index)
        case .readBody:
            if let head = lastHead { try readBody(of: head) }
        case .readBytes(let count):
            try socket.discard(count)
        case .expectRequestLine(let prefix):
            if lastHead == nil { try readRequest() }
            let line = lastHead?.startLine ?? ""
            if !line.hasPrefix(prefix) {
                core.recordMismatch("connection \(index): request line '\(line)' does not start with '\(prefix)'")
            }
        case .send(let bytes):
            try socket.write(bytes)
        case .sendSlowly(let bytes, let chunk, let interval):
            var start = 0
            while start < bytes.count {
                let end = min(start + chunk, bytes.count)
                try socket.write(bytes[start..<end])
                start = end
                if start < bytes.count, !POSIXSocket.sleep(interval, wake: core.wakeRead) { throw .woken }
            }
        case .sleep(let duration):
            if !POSIXSocket.sleep(duration, wake: core.wakeRead) { throw .woken }
        case .waitUntil(let condition, let limit):
            let deadline = ContinuousClock.now.advanced(by: limit)
            while !condition(), ContinuousClock.now < deadline {
                if !POSIXSocket.sleep(.milliseconds(1), wake: core.wakeRead) { throw .woken }
            }
        case .stallUntilClosed(let limit):
            // POLLRDHUP reports the client's FIN without reading; POLLHUP/POLLERR its RST.
            let result = POSIXSocket.wait(
                fd: socket.fd, events: POSIXSocket.pollReadHangUp, wake: core.wakeRead, timeout: limit)
            if result == .woken { throw .woken }
        case .close:
            closeGracefully()
        case .reset:
            POSIXSocket.setResetOnClose(socket.fd)
            Glibc.close(socket.fd)
            isOpen = false
        case .shutdownWrite:
            Glibc.shutdown(socket.fd, Int32(SHUT_WR))
        }
    }

    /// Reads a request head and its body (RFC 9112 §6.3: chunked, else Content-Length, else none).
    private mutating func readRequest() throws(BufferedSocket.Failure) {
        let head = try socket.readHead()
        lastHead = head
        core.recordHead(head, connection: index)
        try readBody(of: head)
    }

    /// Reads the body `head` announces.
    private mutating func readBody(of head: MessageHead) throws(BufferedSocket.Failure) {
        if head.isChunked {
            _ = try socket.readChunkedBody(limit: 0)
        } else if let length = head.contentLength {
            try socket.discard(length)
        }
    }

    /// Reads what the client already sent (so the close is a FIN, not an RST), then closes.
    private mutating func closeGracefully() {
        socket.drainPending()
        Glibc.close(socket.fd)
        isOpen = false
    }
}
