#if canImport(Glibc)
import Glibc
#endif
import FerryIO
import FerrySession

/// A file written from chunks that appears at its path whole or not at all: a temporary file
/// of mode 0600 in the same directory (`O_EXCL | O_NOFOLLOW`), renamed over the path by
/// ``commit()``; dropped without a commit, it is removed.
final class BodyFileWriter {
    private let path: String
    private let temporary: String
    private var fd: Int32
    private var committed = false

    init(replacing path: String) throws(NetworkError) {
        do throws(SystemError) {
            (fd, temporary) = try PrivateFile.createSibling(of: path, suffix: "part")
        } catch {
            throw Self.failure(.cannotCreateFile, path, error)
        }
        self.path = path
    }

    deinit {
        if fd >= 0 { close(fd) }
        if !committed { unlink(temporary) }
    }

    /// Appends `bytes`.
    func write(_ bytes: some Collection<UInt8>) throws(NetworkError) {
        let result: Int32? = bytes.withContiguousStorageIfAvailable { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
        guard let result else { return try write(Array(bytes)) }
        guard result == 0 else { throw Self.failure(.cannotWriteToFile, path, SystemError(errno: result, syscall: "write")) }
    }

    /// Closes the file and renames it over the path.
    func commit() throws(NetworkError) {
        let closed = close(fd)
        fd = -1
        guard closed == 0 else { throw Self.failure(.cannotWriteToFile, path, SystemError(errno: errno, syscall: "close")) }
        guard rename(temporary, path) == 0 else {
            throw Self.failure(.cannotCreateFile, path, SystemError(errno: errno, syscall: "rename"))
        }
        committed = true
    }

    private static func failure(_ code: NetworkError.Code, _ path: String, _ cause: SystemError) -> NetworkError {
        let verb = code == .cannotCreateFile ? "create" : "write"
        return NetworkError(code, reason: "Cannot \(verb) \(path): \(cause.errnoText)", underlyingError: cause)
    }
}
