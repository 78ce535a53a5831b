#if canImport(Glibc)
import Glibc
#endif
import FerryIO

/// The destination of a download, written as the body arrives (never held in memory).
///
/// Writes happen on the engine's loop thread: they are local file writes the engine owns,
/// not user code. A failed or cancelled download removes the partial file.
final class DownloadFile: @unchecked Sendable {
    let path: String
    // Only touched on the exchange's loop after creation.
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Creates (or truncates) the file.
    static func create(path: String) throws(SystemError) -> DownloadFile {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError(errno: errno, syscall: "open") }
        return DownloadFile(path: path, fd: fd)
    }

    /// Where temporary downloads go: `$TMPDIR`, else `/tmp`.
    static var temporaryDirectory: String {
        if let directory = getenv("TMPDIR").map({ String(cString: $0) }), !directory.isEmpty { return directory }
        return "/tmp"
    }

    /// Creates a new file with a unique name in ``temporaryDirectory`` (mode 0600).
    static func createTemporary() throws(SystemError) -> DownloadFile {
        var template = Array("\(temporaryDirectory)/ferry-download-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError(errno: errno, syscall: "mkstemp") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return DownloadFile(path: path, fd: fd)
    }

    /// Writes all of `bytes`, retrying short writes and EINTR.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError(errno: errno, syscall: "write")
            }
            offset += written
        }
    }

    /// Closes the file, reporting a deferred write error (NFS, full disk).
    func close() throws(SystemError) {
        guard fd >= 0 else { return }
        let result = Glibc.close(fd)
        fd = -1
        if result != 0 { throw SystemError(errno: errno, syscall: "close") }
    }

    /// Closes and removes the partial file.
    func discard() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        unlink(path)
    }
}
