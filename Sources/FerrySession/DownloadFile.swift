#if canImport(Glibc)
import Glibc
#endif
import FerryIO

/// The destination of a download, written as the body arrives (never held in memory).
///
/// Writes happen on the engine's loop thread: they are local file writes the engine owns,
/// not user code. A failed or cancelled download removes the partial file, unless it can be
/// continued (``TaskEngineSide/endPartialOutput(keeping:)``). A caller's destination is
/// written beside it and renamed over it when complete (``create(replacing:)``).
final class DownloadFile: @unchecked Sendable {
    /// The file written.
    let path: String
    /// The caller's destination that ``path`` is renamed over by ``commit()``; nil when the
    /// file written is the one handed over.
    private(set) var destination: String?
    /// False for a file written in place (a device, a FIFO, a file in a directory the caller
    /// cannot write): a failed download must not remove it.
    private var unlinksOnDiscard = true
    // Only touched on the exchange's loop after creation (read by tests).
    private(set) var fd: Int32
    /// Bytes in the file: those kept from before, and those written since.
    private(set) var length: Int64
    /// A continued file holds bytes past ``length`` that go once the download writes (or
    /// finishes): until then a refused answer leaves the file as it was.
    private var cutPending = false
    /// The length the file has when complete, when the server said it (a 206's
    /// Content-Range): a body that ends before it leaves the download incomplete.
    var completeLength: Int64?

    private init(path: String, fd: Int32, length: Int64 = 0) {
        self.path = path
        self.fd = fd
        self.length = length
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }

    /// A file for the body that replaces `destination` once complete: a new file beside it,
    /// created exclusively and never through a symbolic link (``PrivateFile/createSibling(of:suffix:)``),
    /// with the mode a new file gets (0666 less the umask). Until ``commit()`` the destination
    /// is untouched: a failed download leaves it as it was, a reader never sees half a body,
    /// and a symbolic link planted at the destination is replaced, never written through.
    ///
    /// A directory is refused at once. A device, FIFO or socket (`/dev/null`, `/dev/stdout`)
    /// is written in place and never removed. A regular file being replaced keeps its mode;
    /// in a directory the caller cannot write, it is written in place (no one without that
    /// right can have planted a link there): it is cut at the first byte written, so a
    /// download that fails before leaves it as it was, and it is never removed (a failure
    /// after the first byte leaves what arrived).
    /// - Parameter makeSibling: Creates the new file beside the destination (tests fail it).
    static func create(
        replacing destination: String,
        makeSibling: (String) throws(SystemError) -> (fd: Int32, path: String) = { path throws(SystemError) in
            try PrivateFile.createSibling(of: path, suffix: "part")
        }
    ) throws(SystemError) -> DownloadFile {
        var existing = stat()
        let exists = lstat(destination, &existing) == 0
        let type = existing.st_mode & S_IFMT
        if exists, type == S_IFDIR { throw SystemError(errno: EISDIR, syscall: "open") }
        if exists, type != S_IFREG, type != S_IFLNK {
            let fd = open(destination, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { throw SystemError(errno: errno, syscall: "open") }
            let file = DownloadFile(path: destination, fd: fd)
            file.unlinksOnDiscard = false
            return file
        }
        let sibling: (fd: Int32, path: String)
        do throws(SystemError) {
            sibling = try makeSibling(destination)
        } catch where exists && type == S_IFREG && (error.errno == EACCES || error.errno == EROFS) {
            let fd = open(destination, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { throw SystemError(errno: errno, syscall: "open") }
            let file = DownloadFile(path: destination, fd: fd)
            file.cutPending = existing.st_size > 0
            file.unlinksOnDiscard = false
            return file
        }
        // The permission bits only: a set-user-ID bit must not pass to bytes from a server.
        let mode = exists && type == S_IFREG ? existing.st_mode & 0o777 : 0o666 & ~currentUmask
        guard fchmod(sibling.fd, mode) == 0 else {
            let error = SystemError(errno: errno, syscall: "fchmod")
            Glibc.close(sibling.fd)
            unlink(sibling.path)
            throw error
        }
        let file = DownloadFile(path: sibling.path, fd: sibling.fd)
        file.destination = destination
        return file
    }

    /// Puts a closed, complete file in its destination: one `rename(2)`, atomic.
    /// - Returns: Where the file is now.
    func commit() throws(SystemError) -> String {
        guard let destination else { return path }
        guard rename(path, destination) == 0 else { throw SystemError(errno: errno, syscall: "rename") }
        self.destination = nil
        return destination
    }

    /// The process's umask, read without changing it (`umask(2)` can only be read by setting
    /// it, which would race with other threads creating files): `/proc/self/status`, else the
    /// strictest, 077.
    private static var currentUmask: mode_t {
        guard let status = fopen("/proc/self/status", "r") else { return 0o077 }
        defer { fclose(status) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), status) != nil {
            let bytes = line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            guard bytes.starts(with: Array("Umask:".utf8)) else { continue }
            let digits = bytes.dropFirst(6).filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
            return mode_t(String(decoding: digits, as: UTF8.self), radix: 8) ?? 0o077
        }
        return 0o077
    }

    /// Where temporary downloads go: `$TMPDIR`, else `/tmp`.
    static var temporaryDirectory: String {
        if let directory = getenv("TMPDIR").map({ String(cString: $0) }), !directory.isEmpty { return directory }
        return "/tmp"
    }

    /// The name ``createTemporary()`` gives its files, before the unique part.
    private static let temporaryPrefix = "ferry-download-"

    /// Whether `path` names a file ``createTemporary()`` could have made: one named
    /// `ferry-download-…` right in ``temporaryDirectory``.
    static func isTemporaryPath(_ path: String) -> Bool {
        guard let slash = path.lastIndex(of: "/"), !path.contains("/../"), !path.contains("/./") else { return false }
        // `TMPDIR=/tmp/` makes `/tmp//ferry-download-…`: trailing slashes do not count.
        func trimmed(_ directory: Substring) -> Substring {
            var directory = directory
            while directory.count > 1, directory.hasSuffix("/") { directory = directory.dropLast() }
            return directory
        }
        return trimmed(path[..<slash]) == trimmed(Substring(temporaryDirectory))
            && path[path.index(after: slash)...].hasPrefix(temporaryPrefix)
    }

    /// Creates a new file with a unique name in ``temporaryDirectory`` (mode 0600).
    static func createTemporary() throws(SystemError) -> DownloadFile {
        let (fd, path) = try PrivateFile.createUnique { random in "\(temporaryDirectory)/\(temporaryPrefix)\(random)" }
        return DownloadFile(path: path, fd: fd)
    }

    /// Opens a file to go on writing after its first `offset` bytes (those after them are cut
    /// off at the first write, or when the download finishes: a refused answer leaves them).
    /// Only a regular file is opened; from offset 0 one is created if missing, after that a
    /// file that is gone cannot be continued. A path from resume data is not followed through
    /// a symbolic link (`followingLinks` false): the data is outside input.
    static func continuing(path: String, keeping offset: Int64, followingLinks: Bool) throws(ResumeFailure) -> DownloadFile {
        var flags = O_WRONLY | O_CLOEXEC | O_NONBLOCK
        if offset == 0 { flags |= O_CREAT }
        if !followingLinks { flags |= O_NOFOLLOW }
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw .partialFile(path: path, SystemError(errno: errno, syscall: "open")) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemError(errno: errno, syscall: "fstat")
            Glibc.close(fd)
            throw .partialFile(path: path, error)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            throw .notRegularFile(path: path)
        }
        guard Int64(info.st_size) >= offset else {
            Glibc.close(fd)
            throw .partialFileShort(path: path, size: Int64(info.st_size), offset: offset)
        }
        let file = DownloadFile(path: path, fd: fd, length: offset)
        guard lseek(fd, off_t(offset), SEEK_SET) >= 0 else { throw .partialFile(path: path, SystemError(errno: errno, syscall: "lseek")) }
        file.cutPending = Int64(info.st_size) > offset
        return file
    }

    /// Cuts off what a continued file held past the bytes kept, if that is still to do: before
    /// the first write, and when the download finishes without one (a 416 for a complete file).
    func applyPendingCut() throws(SystemError) {
        guard cutPending else { return }
        guard ftruncate(fd, off_t(length)) == 0 else { throw SystemError(errno: errno, syscall: "ftruncate") }
        cutPending = false
    }

    /// Starts the file over from byte 0; what it holds goes at the first write (or when the
    /// download finishes), so a connection lost right after the answer leaves it as it was.
    func restart() throws(SystemError) {
        guard lseek(fd, 0, SEEK_SET) >= 0 else { throw SystemError(errno: errno, syscall: "lseek") }
        cutPending = cutPending || length > 0
        length = 0
    }

    /// Writes all of `bytes`, retrying short writes and EINTR.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        try applyPendingCut()
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError(errno: errno, syscall: "write")
            }
            offset += written
        }
        length += Int64(bytes.count)
    }

    /// Closes the file, reporting a deferred write error (NFS, full disk).
    func close() throws(SystemError) {
        guard fd >= 0 else { return }
        let result = Glibc.close(fd)
        fd = -1
        if result != 0 { throw SystemError(errno: errno, syscall: "close") }
    }

    /// Closes and removes the partial file (never a file written in place).
    func discard() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        if unlinksOnDiscard { unlink(path) }
    }
}
