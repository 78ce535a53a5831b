#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Standard output and standard error, shared by concurrent transfers.
///
/// With `-Z` several transfers write at once; one lock keeps each write (a body chunk, a `-w`
/// line, a verbose line, the progress meter) whole. Writes use `write(2)` directly so a closed
/// pipe is an error we report (curl's exit 23), not a crash: ferry ignores SIGPIPE at start.
final class Console: Sendable {
    /// `-w` text not written yet (see ``writeOutSoon(_:)``), under the lock.
    private let lock = Mutex<[UInt8]>([])
    /// How much `-w` text may wait before it is written.
    static let pendingLimit = 16 * 1024
    /// Whether standard error is a terminal (the progress meter is drawn only there).
    let stderrIsTerminal: Bool
    /// Whether standard output is a terminal.
    let stdoutIsTerminal: Bool

    private let outputFD: Int32
    private let errorFD: Int32

    /// - Parameters: the descriptors to write to; tests pass pipes to read what ferry printed.
    init(outputFD: Int32 = STDOUT_FILENO, errorFD: Int32 = STDERR_FILENO) {
        self.outputFD = outputFD
        self.errorFD = errorFD
        stderrIsTerminal = isatty(errorFD) == 1
        stdoutIsTerminal = isatty(outputFD) == 1
    }

    /// Writes bytes to standard output; false when the write failed (for example EPIPE).
    @discardableResult
    func writeOut(_ bytes: some Collection<UInt8>) -> Bool {
        lock.withLock { pending in
            flush(&pending)
            return Self.writeAll(outputFD, Array(bytes))
        }
    }

    /// Writes text to standard output soon: when more waits than ``pendingLimit``, before
    /// anything else is written to either stream (so the order is kept), or at ``flush()``.
    /// For the `-w` line of every transfer, which then costs no system call of its own, as
    /// curl's buffered standard output; written at once to a terminal.
    func writeOutSoon(_ text: String) {
        lock.withLock { pending in
            pending.append(contentsOf: text.utf8)
            if stdoutIsTerminal || pending.count >= Self.pendingLimit { flush(&pending) }
        }
    }

    /// Writes what ``writeOutSoon(_:)`` left waiting.
    func flush() {
        lock.withLock { flush(&$0) }
    }

    private func flush(_ pending: inout [UInt8]) {
        guard !pending.isEmpty else { return }
        _ = Self.writeAll(outputFD, pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes text to standard output.
    @discardableResult
    func writeOut(_ text: String) -> Bool { writeOut(Array(text.utf8)) }

    /// Writes text to standard error as is (no newline added).
    func writeError(_ text: String) {
        lock.withLock { pending in
            flush(&pending)
            _ = Self.writeAll(errorFD, Array(text.utf8))
        }
    }

    /// Writes each line to standard error, ending it with a newline.
    func writeErrorLines(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        writeError(lines.map { $0 + "\n" }.joined())
    }

    /// Writes every byte to `fd`, retrying short writes and EINTR.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
