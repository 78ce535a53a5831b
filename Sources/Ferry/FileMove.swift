#if canImport(Glibc)
import Glibc
#endif
import FerryIO
import FerrySession
import FoundationEssentials

/// Moves a finished download to the file its caller chose.
enum FileMove {
    /// Moves `source` to `target`, replacing a file there: one `rename(2)` (atomic: a reader
    /// of `target` sees the old file or the new one, and a symlink at `target` is replaced,
    /// never followed), or, across file systems, a copy into a temporary file beside `target`
    /// renamed over it.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/cannotMoveFile`` naming both paths
    ///   and the system's reason.
    static func move(_ source: URL, to target: URL) throws(NetworkError) {
        let from = source.path, to = target.path
        if rename(from, to) == 0 { return }
        let renameErrno = errno
        guard renameErrno == EXDEV else { throw failure(from, to, SystemError(errno: renameErrno, syscall: "rename")) }
        let temporary = to + ".ferry-\(UInt32.random(in: 0 ... .max))"
        do throws(SystemError) {
            try copy(from, to: temporary)
        } catch {
            unlink(temporary)
            throw failure(from, to, error)
        }
        guard rename(temporary, to) == 0 else {
            let error = SystemError(errno: errno, syscall: "rename")
            unlink(temporary)
            throw failure(from, to, error)
        }
        unlink(from)
    }

    private static func failure(_ from: String, _ to: String, _ error: SystemError) -> NetworkError {
        NetworkError(.cannotMoveFile, reason: "Could not move the download \(from) to \(to): \(error.errnoText)",
                     failingURL: URL(fileURLWithPath: to), underlyingError: error)
    }

    /// Copies `from` into a new file `to` (O_EXCL, mode 0600), in 256 KiB slices.
    private static func copy(_ from: String, to: String) throws(SystemError) {
        let input = open(from, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw SystemError(errno: errno, syscall: "open") }
        defer { close(input) }
        let output = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw SystemError(errno: errno, syscall: "open") }
        var closed = false
        defer { if !closed { close(output) } }
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError(errno: errno, syscall: "read")
            }
            if count == 0 { break }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                if step < 0 {
                    if errno == EINTR { continue }
                    throw SystemError(errno: errno, syscall: "write")
                }
                written += step
            }
        }
        closed = true
        guard close(output) == 0 else { throw SystemError(errno: errno, syscall: "close") }
    }
}
