// Moving one HTTP/1.1 message body from one socket to another without holding it in memory:
// Content-Length, chunked (framing and trailers passed on as received) or up to the close.

/// Internal: which socket of a proxied exchange failed.
enum ProxySide: Equatable {
    /// The socket to the proxy's client.
    case client
    /// The socket to the origin server (or the tunnel's target).
    case origin
}

/// Internal: a read or write failure on one side of a proxied exchange.
struct ProxyRelayFailure: Error {
    let side: ProxySide
    let failure: BufferedSocket.Failure
}

/// Internal: how a message body is delimited (RFC 9112 §6.3).
enum ProxyBodyFraming: Equatable {
    /// No body.
    case none
    /// Exactly this many bytes.
    case length(Int)
    /// Chunked transfer coding.
    case chunked
    /// Everything until the sender closes (responses only).
    case untilClose
}

/// Internal: a ``BufferedSocket`` that knows its side, so that every failure says where it
/// happened.
struct ProxyPeer {
    var socket: BufferedSocket
    let side: ProxySide

    /// The longest chunk-size or trailer line accepted.
    static let lineLimit = 64 * 1024

    mutating func fill() throws(ProxyRelayFailure) -> Int {
        do { return try socket.fill() } catch { throw ProxyRelayFailure(side: side, failure: error) }
    }

    mutating func read(exactly count: Int) throws(ProxyRelayFailure) -> [UInt8] {
        do { return try socket.read(exactly: count) } catch { throw ProxyRelayFailure(side: side, failure: error) }
    }

    mutating func readLine(limit: Int = lineLimit) throws(ProxyRelayFailure) -> [UInt8] {
        do { return try socket.readLine(limit: limit) } catch { throw ProxyRelayFailure(side: side, failure: error) }
    }

    mutating func readHead(limit: Int) throws(ProxyRelayFailure) -> MessageHead {
        do { return try socket.readHead(limit: limit) } catch { throw ProxyRelayFailure(side: side, failure: error) }
    }

    mutating func write(_ bytes: [UInt8]) throws(ProxyRelayFailure) {
        do { try socket.write(bytes) } catch { throw ProxyRelayFailure(side: side, failure: error) }
    }

    /// A framing error of what this side sent.
    func malformed(_ why: String) -> ProxyRelayFailure {
        ProxyRelayFailure(side: side, failure: .malformed(why))
    }
}

/// Internal: body relays; each reads from `source` and writes to `sink` in pieces of at most
/// 256 KiB, so a body of any size passes through in bounded memory.
enum ProxyRelay {
    private static let crlf: [UInt8] = [0x0D, 0x0A]
    private static let pieceLimit = 256 * 1024

    /// Relays one body framed by `framing`.
    static func body(_ framing: ProxyBodyFraming, from source: inout ProxyPeer, to sink: inout ProxyPeer) throws(ProxyRelayFailure) {
        switch framing {
        case .none: return
        case .length(let count): try exactly(count, from: &source, to: &sink)
        case .chunked: try chunked(from: &source, to: &sink)
        case .untilClose: try untilClose(from: &source, to: &sink)
        }
    }

    /// Relays exactly `count` bytes; the source closing earlier is a failure.
    static func exactly(_ count: Int, from source: inout ProxyPeer, to sink: inout ProxyPeer) throws(ProxyRelayFailure) {
        var left = count
        while left > 0 {
            if source.socket.buffered.isEmpty, try source.fill() == 0 {
                throw ProxyRelayFailure(side: source.side, failure: .closedByPeer)
            }
            let take = min(left, source.socket.buffered.count, pieceLimit)
            try sink.write(try source.read(exactly: take))
            left -= take
        }
    }

    /// Relays chunks, the last chunk and the trailer section (RFC 9112 §7.1), lines as received.
    static func chunked(from source: inout ProxyPeer, to sink: inout ProxyPeer) throws(ProxyRelayFailure) {
        while true {
            let line = try source.readLine()
            let sizeText = line.split(separator: UInt8(ascii: ";"), maxSplits: 1, omittingEmptySubsequences: false)[0]
            let digits = String(decoding: sizeText, as: UTF8.self).trimmingSpaces
            guard !digits.isEmpty, digits.count <= 15, digits.utf8.allSatisfy(isHexDigit), let size = Int(digits, radix: 16) else {
                throw source.malformed("bad chunk size line")
            }
            try sink.write(line + crlf)
            if size == 0 { break }
            try exactly(size, from: &source, to: &sink)
            guard try source.readLine().isEmpty else { throw source.malformed("chunk data not followed by CRLF") }
            try sink.write(crlf)
        }
        var total = 0
        while true {
            let line = try source.readLine()
            total += line.count + 2
            guard total <= ProxyPeer.lineLimit else { throw source.malformed("trailer section too large") }
            try sink.write(line + crlf)
            if line.isEmpty { return }
        }
    }

    /// Relays everything until the source closes.
    static func untilClose(from source: inout ProxyPeer, to sink: inout ProxyPeer) throws(ProxyRelayFailure) {
        while true {
            if source.socket.buffered.isEmpty, try source.fill() == 0 { return }
            try sink.write(try source.read(exactly: min(source.socket.buffered.count, pieceLimit)))
        }
    }

    /// Consumes a body without relaying it (before the proxy answers a request itself).
    static func discard(_ framing: ProxyBodyFraming, from source: inout ProxyPeer) throws(ProxyRelayFailure) {
        switch framing {
        case .none, .untilClose:
            return
        case .length(let count):
            do { try source.socket.discard(count) } catch { throw ProxyRelayFailure(side: source.side, failure: error) }
        case .chunked:
            do { _ = try source.socket.readChunkedBody(limit: 0) } catch { throw ProxyRelayFailure(side: source.side, failure: error) }
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
