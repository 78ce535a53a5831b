#if canImport(Glibc)
import Glibc
#endif
import FerryIO

/// Files that hold secrets (a cookie jar, permanent credentials): replaced whole, never
/// readable by anyone else, never written through a link someone planted.
package enum PrivateFile {
    /// A new file of mode 0600 beside `path`, to be written and renamed over it: created
    /// exclusively, never through a symbolic link, named `.NAME.RANDOM.SUFFIX`.
    /// - Returns: Its descriptor and path.
    /// - Throws: ``SystemError`` from `open`.
    package static func createSibling(of path: String, suffix: String) throws(SystemError) -> (fd: Int32, path: String) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return try createUnique { random in "\(directory)/.\(name).\(random).\(suffix)" }
    }

    /// A new file of mode 0600 at the path `name` makes of a random part: created exclusively
    /// (another name is tried if one exists), never through a symbolic link, and close-on-exec
    /// from the start, so no child the process spawns meanwhile inherits it (mkstemp's
    /// descriptor is not; mkostemp is a GNU extension Swift does not import).
    /// - Returns: Its descriptor (open for reading and writing) and path.
    /// - Throws: ``SystemError`` from `open`.
    package static func createUnique(_ name: (String) -> String) throws(SystemError) -> (fd: Int32, path: String) {
        var path = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            path = name(String(UInt64.random(in: .min ... .max), radix: 16))
            fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw SystemError(errno: errno, syscall: "open") }
        return (fd, path)
    }

    /// Replaces the file at `path` with `bytes`: a new file of mode 0600 in the same directory
    /// (created exclusively, not through a symbolic link), written, synced, then renamed over
    /// `path`, so a reader sees the old file or the new one whole. The directory is synced
    /// after the rename when it can be (a failure there is not an error).
    /// - Throws: ``SystemError`` naming the call that failed; the new file is removed.
    static func replace(_ path: String, with bytes: [UInt8]) throws(SystemError) {
        let (fd, temporary) = try createSibling(of: path, suffix: "tmp")
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do throws(SystemError) {
            // The umask may have taken bits from 0600; it can never have added any.
            guard fchmod(fd, 0o600) == 0 else { throw SystemError(errno: errno, syscall: "fchmod") }
            try writeAll(bytes, to: fd)
            guard fsync(fd) == 0 else { throw SystemError(errno: errno, syscall: "fsync") }
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw SystemError(errno: errno, syscall: "close") }
        guard rename(temporary, path) == 0 else { throw SystemError(errno: errno, syscall: "rename") }
        renamed = true
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError(errno: errno, syscall: "write")
            }
            offset += written
        }
    }
}
