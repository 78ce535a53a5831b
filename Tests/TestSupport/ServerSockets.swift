// The listening socket and wake pipe every raw-socket test server (ScriptedServer, ForwardProxy)
// opens together, stops once and closes together.
import FerryBase
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A test server's listening socket on a loopback address, and the pipe that wakes its threads
/// when it shuts down.
final class ServerSockets: Sendable {
    /// The listening socket.
    let listener: Int32
    /// The port the kernel chose.
    let port: Int
    /// Readable once shutdown began: every bounded wait of the server's threads watches it.
    let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopping = Locked(false)

    /// Listens on `host` (an ephemeral port) and makes the wake pipe.
    /// - Throws: ``TestServerError`` when either cannot be made (nothing stays open then).
    init(host: String) throws(TestServerError) {
        let (listener, port) = try POSIXSocket.listen(host: host)
        let wake: (read: Int32, write: Int32)
        do {
            wake = try POSIXSocket.makeWakePipe()
        } catch {
            close(listener)
            throw error
        }
        self.listener = listener
        self.port = port
        wakeRead = wake.read
        wakeWrite = wake.write
    }

    /// Marks the server as stopping and wakes its threads; `false` when it was stopping
    /// already. The pipe's byte is never read, so every later wait on it returns at once.
    func beginShutdown() -> Bool {
        let first = stopping.withLock { stopping in
            defer { stopping = true }
            return !stopping
        }
        guard first else { return false }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        return true
    }

    /// Closes the listener and the pipe (once the threads that watch them have ended).
    func closeAll() {
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }
}
