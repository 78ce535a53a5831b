#if canImport(Glibc)
import Glibc
#endif
import FerryIO
import FerryTLS

/// Why a transport could not move bytes.
enum TransportFailure: Error {
    /// The socket failed (reset, broken pipe…).
    case system(SystemError)
    /// TLS failed after the handshake (bad record, fatal alert).
    case tls(TLSError)
}

/// The byte stream an HTTP/1.1 connection runs over: the socket itself, or TLS on it.
///
/// For TLS, the handshake's ciphertext moves through ``receiveCiphertext()`` and the
/// ``TLSConnection``'s memory BIO. Once the handshake is over and that BIO is empty, OpenSSL
/// reads the socket itself (a record buffer per read(2), decrypted straight into the caller's
/// buffer), which saves two copies of every byte received. Output always goes through a
/// memory BIO: `writev` encrypts at most ``maxPlaintextPerWrite`` bytes and sends what the
/// socket takes; what it does not take waits in ``hasPendingOutput`` and goes first on the next
/// write or `flush`. Confined to the connection's loop.
final class Transport {
    /// Plaintext encrypted per `writev` call, so a large body never sits in memory twice.
    static let maxPlaintextPerWrite = 64 * 1024
    private static let cipherBufferSize = 64 * 1024

    let socket: Socket
    /// The TLS connection, or nil for plain HTTP.
    let tls: TLSConnection?
    /// The loop whose spare buffers the ciphertext buffers are (TLS only).
    private let loop: EventLoop?
    /// Ciphertext read from the socket during the handshake; given back to the loop once
    /// OpenSSL reads the socket itself.
    private var cipherInMemory: ConnectionBuffer?
    private var cipherIn: UnsafeMutableRawBufferPointer? { cipherInMemory?.bytes }
    /// Ciphertext waiting to be written.
    private let cipherOutMemory: ConnectionBuffer?
    private var cipherOut: UnsafeMutableRawBufferPointer? { cipherOutMemory?.bytes }
    private var outStart = 0
    private var outEnd = 0
    /// Writing to the socket failed once (the peer reset or closed): what the peer sent before
    /// is still read, without trying to write again first.
    private var writeFailed = false
    /// How the input ended (close_notify, EOF, or a failure) while plaintext was still being
    /// returned; reported by the next `read`, which ``hasBufferedInput`` makes the reader call.
    private var deferredEnd: Result<Void, TransportFailure>?

    /// Plain HTTP: the socket itself.
    init(socket: Socket) {
        self.socket = socket
        self.tls = nil
        self.loop = nil
        self.cipherInMemory = nil
        self.cipherOutMemory = nil
    }

    /// TLS on `socket`, its ciphertext buffers taken from `loop`'s spares (on its thread).
    init(socket: Socket, tls: TLSConnection, loop: EventLoop) {
        self.socket = socket
        self.tls = tls
        self.loop = loop
        self.cipherInMemory = loop.takeBuffer(byteCount: Self.cipherBufferSize)
        self.cipherOutMemory = loop.takeBuffer(byteCount: Self.cipherBufferSize)
    }

    deinit {
        if let cipherInMemory { loop?.giveBack(cipherInMemory) }
        if let cipherOutMemory { loop?.giveBack(cipherOutMemory) }
    }

    var fd: Int32 { socket.fd }

    // MARK: - Reading

    /// Fills `buffer` with plaintext: as much as is available without blocking.
    /// - Returns: `.processed(0)` at the end of the stream (EOF, or TLS close_notify),
    ///   `.wouldBlock` when nothing is available yet.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportFailure) -> IOResult<Int> {
        guard let tls else {
            do throws(SystemError) {
                return try socket.read(into: buffer)
            } catch {
                throw .system(error)
            }
        }
        switch deferredEnd {
        case .success?: return .processed(0)
        case .failure(let failure)?: throw failure
        case nil: break
        }
        if !tls.readsSocket, tls.readFromSocket(socket.fd), let cipherInMemory {
            // The handshake's input buffer is no longer needed.
            loop?.giveBack(cipherInMemory)
            self.cipherInMemory = nil
        }
        var filled = 0
        while filled < buffer.count {
            switch tls.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) {
            case .bytes(let count):
                filled += count
            case .closed:
                if filled > 0 { deferredEnd = .success(()) }
                return .processed(filled)
            case .failed(let error):
                guard filled > 0 else { throw .tls(error) }
                deferredEnd = .failure(.tls(error))
                return .processed(filled)
            case .socketFailed(let code):
                let error = SystemError(errno: code, syscall: "read")
                guard filled > 0 else { throw .system(error) }
                deferredEnd = .failure(.system(error))
                return .processed(filled)
            case .needsInput:
                // OpenSSL may want to answer (a key update): send that before waiting, unless
                // the socket already refused a write (an answer that came before a reset is
                // still read).
                if !writeFailed { _ = try flush() }
                // OpenSSL read the socket dry itself.
                guard let cipherIn else { return filled > 0 ? .processed(filled) : .wouldBlock }
                let result: IOResult<Int>
                do throws(SystemError) {
                    result = try socket.read(into: cipherIn)
                } catch {
                    guard filled > 0 else { throw .system(error) }
                    deferredEnd = .failure(.system(error))
                    return .processed(filled)
                }
                switch result {
                case .wouldBlock:
                    return filled > 0 ? .processed(filled) : result
                case .processed(0):
                    // EOF without close_notify: HTTP framing decides whether the body was cut.
                    if filled > 0 { deferredEnd = .success(()) }
                    return .processed(filled)
                case .processed(let count):
                    tls.receive(UnsafeRawBufferPointer(rebasing: cipherIn[0..<count]))
                }
            }
        }
        return .processed(filled)
    }

    /// Reads ciphertext from the socket into the TLS connection (during the handshake).
    /// - Returns: `.processed(0)` at EOF, `.wouldBlock` when the socket has nothing.
    func receiveCiphertext() throws(TransportFailure) -> IOResult<Int> {
        guard let tls, let cipherIn else { return .wouldBlock }
        let result: IOResult<Int>
        do throws(SystemError) {
            result = try socket.read(into: cipherIn)
        } catch {
            throw .system(error)
        }
        if case .processed(let count) = result, count > 0 {
            tls.receive(UnsafeRawBufferPointer(rebasing: cipherIn[0..<count]))
        }
        return result
    }

    /// TLS holds ciphertext or plaintext already read from the socket, which epoll cannot see:
    /// the reader must call `read` again before waiting for the socket.
    var hasBufferedInput: Bool { deferredEnd != nil || (tls?.hasBufferedInput ?? false) }

    /// The most input this transport may have taken from the socket and not returned yet
    /// (OpenSSL's record buffer, and the handshake's ciphertext buffer): bytes that a receive
    /// low-water mark must not wait for, since the socket no longer holds them.
    var maximumHeldInput: Int { tls == nil ? 0 : TLSClientContext.readBufferLength + Self.cipherBufferSize }

    // MARK: - Writing

    /// Writes (plain) or encrypts and sends (TLS) from `buffers`, in order.
    /// - Returns: How many plaintext bytes were taken; `.wouldBlock` when the socket is full.
    func writev(_ buffers: [UnsafeRawBufferPointer]) throws(TransportFailure) -> IOResult<Int> {
        guard let tls else {
            do throws(SystemError) {
                return try socket.writev(buffers)
            } catch {
                throw .system(error)
            }
        }
        // Ciphertext the socket refused goes first. Ciphertext TLS holds but never offered (the
        // handshake's last flight) leaves with this write's records, in one send.
        if outStart < outEnd {
            guard try flush() else { return .wouldBlock }
        }
        var taken = 0
        for buffer in buffers where taken < Self.maxPlaintextPerWrite {
            let slice = UnsafeRawBufferPointer(rebasing: buffer[0..<min(buffer.count, Self.maxPlaintextPerWrite - taken)])
            do throws(TLSError) {
                try tls.write(slice)
            } catch {
                throw .tls(error)
            }
            taken += slice.count
        }
        // The plaintext is taken even if the socket takes only part of the ciphertext: the
        // rest waits in `hasPendingOutput`, and the next write or `flush` sends it first.
        _ = try flush()
        return .processed(taken)
    }

    /// Ciphertext is waiting for the socket.
    var hasPendingOutput: Bool {
        guard let tls else { return false }
        return outStart < outEnd || tls.pendingOutput > 0
    }

    /// Sends pending ciphertext.
    /// - Returns: `true` when nothing is left pending, `false` when the socket is full.
    func flush() throws(TransportFailure) -> Bool {
        guard let tls, let cipherOut else { return true }
        while true {
            if outStart == outEnd {
                outStart = 0
                outEnd = tls.takeOutput(into: cipherOut)
                if outEnd == 0 { return true }
            }
            let result: IOResult<Int>
            do throws(SystemError) {
                result = try socket.write(UnsafeRawBufferPointer(rebasing: cipherOut[outStart..<outEnd]))
            } catch {
                writeFailed = true
                throw .system(error)
            }
            guard case .processed(let count) = result else { return false }
            outStart += count
        }
    }

    // MARK: - Lifetime

    /// Whether a parked connection still looks usable: nothing to read (a plain peer's EOF or
    /// stray bytes both make it unusable). For TLS, records that carry no data (a late session
    /// ticket) are consumed; a close_notify or any data makes it unusable.
    var isIdleAlive: Bool {
        if deferredEnd != nil { return false }
        var byte: UInt8 = 0
        let peeked = recv(socket.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peeked < 0 {
            let quiet = errno == EAGAIN || errno == EWOULDBLOCK
            // The socket is quiet, but TLS may already hold a close_notify it read earlier.
            guard quiet, tls?.hasBufferedInput == true else { return quiet }
        } else if peeked == 0 || tls == nil {
            return false
        }
        var scratch: UInt8 = 0
        let outcome = try? withUnsafeMutableBytes(of: &scratch) { buffer throws(TransportFailure) in try read(into: buffer) }
        return outcome == .wouldBlock
    }

    /// Sends close_notify if the socket takes it at once, then closes the socket.
    func close() {
        if let tls {
            tls.close()
            _ = try? flush()
        }
        socket.close()
    }
}
