// A non-blocking socket with a read buffer and bounded waits, shared by ScriptedServer and
// RawHTTPClient. It frames HTTP/1.1 messages just enough for tests (RFC 9112 §6, §7.1).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Internal: reads and writes on one descriptor, each wait bounded by `timeout` and cut short
/// by the `wake` pipe. It never closes `fd`; its owner does.
struct BufferedSocket {
    /// Why a read or write stopped.
    enum Failure: Error, Equatable {
        /// Nothing arrived (or could be written) within the timeout.
        case timedOut
        /// The peer closed its side (EOF) before the expected bytes arrived.
        case closedByPeer
        /// The owner is shutting down.
        case woken
        /// A framing rule was broken (bad chunk size, head too large, …).
        case malformed(String)
        /// A syscall failed with this errno.
        case system(String, Int32)
    }

    let fd: Int32
    let wake: Int32
    var timeout: Duration
    /// Called with every byte read, in order (ScriptedServer records them).
    var onRead: ((ArraySlice<UInt8>) -> Void)?

    private var storage: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 256 * 1024)
    private var readIndex = 0
    private(set) var reachedEOF = false

    init(fd: Int32, wake: Int32 = -1, timeout: Duration) {
        self.fd = fd
        self.wake = wake
        self.timeout = timeout
    }

    /// Bytes read but not consumed yet.
    var buffered: ArraySlice<UInt8> { storage[readIndex...] }

    // MARK: - Reading

    /// Reads once more (waiting at most `timeout`), appending to the buffer.
    /// - Returns: how many bytes arrived; 0 means EOF.
    @discardableResult
    mutating func fill() throws(Failure) -> Int {
        if reachedEOF { return 0 }
        while true {
            // One reused scratch buffer, appended with a bulk copy (fast even in debug builds).
            compactIfNeeded()
            var count = 0
            scratch.withUnsafeMutableBytes { raw in count = recv(fd, raw.baseAddress, raw.count, 0) }
            if count > 0 {
                let oldCount = storage.count
                scratch.withUnsafeBufferPointer { received in
                    storage.append(contentsOf: UnsafeBufferPointer(rebasing: received[0..<count]))
                }
                onRead?(storage[oldCount...])
                return count
            }
            if count == 0 {
                reachedEOF = true
                return 0
            }
            let code = errno
            guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR else {
                throw .system("recv", code)
            }
            switch POSIXSocket.wait(fd: fd, events: Int16(POLLIN), wake: wake, timeout: timeout) {
            case .ready: continue
            case .timedOut: throw .timedOut
            case .woken: throw .woken
            }
        }
    }

    /// Reads whatever is already queued without waiting (used before a close to avoid an RST).
    mutating func drainPending() {
        while !reachedEOF {
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                onRead?(chunk[0..<count])
            } else {
                reachedEOF = count == 0
                return
            }
        }
    }

    /// Consumes exactly `count` bytes.
    mutating func read(exactly count: Int) throws(Failure) -> [UInt8] {
        while storage.count - readIndex < count {
            if try fill() == 0 { throw .closedByPeer }
        }
        let bytes = Array(storage[readIndex..<(readIndex + count)])
        readIndex += count
        return bytes
    }

    /// Consumes exactly `count` bytes without keeping them (they are still passed to `onRead`).
    mutating func discard(_ count: Int) throws(Failure) {
        var left = count
        while left > 0 {
            if storage.count == readIndex, try fill() == 0 { throw .closedByPeer }
            let take = min(left, storage.count - readIndex)
            readIndex += take
            left -= take
        }
    }

    /// Consumes everything up to EOF (at most `limit` bytes are kept, all are consumed).
    mutating func readToEOF(limit: Int) throws(Failure) -> [UInt8] {
        while try fill() > 0 {}
        let bytes = Array(storage[readIndex...].prefix(limit))
        readIndex = storage.count
        return bytes
    }

    /// Consumes one line ending in CRLF (or a bare LF) and returns it without the terminator.
    mutating func readLine(limit: Int = 64 * 1024) throws(Failure) -> [UInt8] {
        // Counted from readIndex: fill() may compact the buffer and move absolute indices.
        var searched = 0
        while true {
            if let lf = storage[(readIndex + searched)...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = lf
                if end > readIndex && storage[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = Array(storage[readIndex..<end])
                readIndex = lf + 1
                return line
            }
            searched = storage.count - readIndex
            if storage.count - readIndex > limit { throw .malformed("line longer than \(limit) bytes") }
            if try fill() == 0 { throw .closedByPeer }
        }
    }

    /// Consumes a message head: the start line and the fields up to the empty line.
    mutating func readHead(limit: Int = 64 * 1024) throws(Failure) -> MessageHead {
        var lines: [String] = []
        var total = 0
        while true {
            let line = try readLine(limit: limit)
            total += line.count + 2
            if total > limit { throw .malformed("head larger than \(limit) bytes") }
            if line.isEmpty {
                // RFC 9112 §2.2: a server SHOULD ignore empty lines before a request line.
                if lines.isEmpty { continue }
                break
            }
            lines.append(String(decoding: line, as: UTF8.self))
        }
        return MessageHead(lines: lines)
    }

    /// Consumes a chunked body (RFC 9112 §7.1) and its trailer section.
    /// - Returns: the decoded body (at most `limit` bytes kept) and each chunk's size in order.
    mutating func readChunkedBody(limit: Int) throws(Failure) -> (body: [UInt8], chunkSizes: [Int]) {
        var body: [UInt8] = []
        var sizes: [Int] = []
        while true {
            let line = String(decoding: try readLine(), as: UTF8.self)
            let sizeText = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingSpaces, radix: 16), size >= 0 else {
                throw .malformed("bad chunk size line '\(line)'")
            }
            if size == 0 { break }
            sizes.append(size)
            let data = try read(exactly: size)
            if body.count < limit { body.append(contentsOf: data.prefix(limit - body.count)) }
            guard try readLine().isEmpty else { throw .malformed("chunk data not followed by CRLF") }
        }
        // Trailer fields, then the empty line.
        while try !readLine().isEmpty {}
        return (body, sizes)
    }

    // MARK: - Writing

    /// Writes every byte, waiting for the peer to read when the socket buffer is full.
    mutating func write(_ bytes: some Collection<UInt8>) throws(Failure) {
        let array = Array(bytes)
        var sent = 0
        while sent < array.count {
            let count = array.withUnsafeBytes {
                send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count >= 0 {
                sent += count
                continue
            }
            let code = errno
            guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR else { throw .system("send", code) }
            switch POSIXSocket.wait(fd: fd, events: Int16(POLLOUT), wake: wake, timeout: timeout) {
            case .ready: continue
            case .timedOut: throw .timedOut
            case .woken: throw .woken
            }
        }
    }

    /// Drops consumed bytes once they dominate the buffer, so long reads stay linear.
    private mutating func compactIfNeeded() {
        if readIndex > 64 * 1024 && readIndex * 2 > storage.count {
            storage.removeFirst(readIndex)
            readIndex = 0
        }
    }
}

/// A parsed HTTP/1.1 message head: start line and fields in wire order.
public struct MessageHead: Sendable, Equatable {
    /// The request line or status line, exactly as received.
    public let startLine: String
    /// Field lines as (name, value) with the name as received and the value trimmed.
    public let fields: [(name: String, value: String)]

    init(lines: [String]) {
        startLine = lines.first ?? ""
        fields = lines.dropFirst().map { line in
            guard let colon = line.firstIndex(of: ":") else { return (line, "") }
            return (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces)
        }
    }

    /// The first value of the field `name` (case-insensitive), or `nil`.
    public func value(of name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Whether the fields say the body is chunked (RFC 9112 §6.1: chunked is the final coding).
    var isChunked: Bool {
        guard let codings = value(of: "transfer-encoding") else { return false }
        return codings.split(separator: ",").last.map { String($0).trimmingSpaces.lowercased() } == "chunked"
    }

    /// The declared Content-Length, if any and valid.
    var contentLength: Int? {
        value(of: "content-length").flatMap { Int($0) }
    }

    /// Compares start lines and fields.
    public static func == (lhs: MessageHead, rhs: MessageHead) -> Bool {
        lhs.startLine == rhs.startLine && lhs.fields.elementsEqual(rhs.fields) { $0 == $1 }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return String(scalars[first...last])
    }
}
