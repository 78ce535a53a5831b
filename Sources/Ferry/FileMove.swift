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
    /// never followed), or, across file systems, a copy into a private temporary file beside
    /// `target` (``PrivateFile/createSibling(of:suffix:)``) renamed over it.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/cannotMoveFile`` naming both paths
    ///   and the system's reason.
    static func move(_ source: URL, to target: URL) throws(NetworkError) {
        let from = source.path, to = target.path
        if rename(from, to) == 0 { return }
        let renameErrno = errno
        guard renameErrno == EXDEV else { throw failure(from, to, SystemError(errno: renameErrno, syscall: "rename")) }
        let temporary: String
        do throws(SystemError) {
            let sibling = try PrivateFile.createSibling(of: to, suffix: "part")
            temporary = sibling.path
            do throws(SystemError) {
                try copy(from, into: sibling.fd)
            } catch {
                unlink(temporary)
                throw error
            }
        } catch {
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

    /// Copies `from` into the open file `output` (closing it), in 256 KiB slices.
    private static func copy(_ from: String, into output: Int32) throws(SystemError) {
        let input = open(from, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            close(output)
            throw SystemError(errno: errno, syscall: "open")
        }
        defer { close(input) }
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
