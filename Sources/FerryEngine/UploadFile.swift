#if canImport(Glibc)
import Glibc
#endif
import FerryIO

/// An upload file, opened before the request starts so its size can be sent as Content-Length.
/// (`package`: the multipart body in `Ferry` reads its file parts with it too.)
package final class UploadFile {
    package let path: String
    let fd: Int32
    package let size: Int64
    package private(set) var offset: Int64 = 0

    private init(path: String, fd: Int32, size: Int64) {
        self.path = path
        self.fd = fd
        self.size = size
    }

    deinit { Glibc.close(fd) }

    package static func open(path: String) -> Result<UploadFile, SystemError> {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(SystemError(errno: errno, syscall: "open")) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemError(errno: errno, syscall: "fstat")
            Glibc.close(fd)
            return .failure(error)
        }
        // Only a regular file has a size to announce; anything else fails before a connection
        // is used (a directory would only fail at pread, after the head was sent).
        guard info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            let isDirectory = info.st_mode & S_IFMT == S_IFDIR
            return .failure(SystemError(errno: isDirectory ? EISDIR : EINVAL, syscall: "open (not a regular file)"))
        }
        return .success(UploadFile(path: path, fd: fd, size: Int64(info.st_size)))
    }

    /// Starts again from the first byte (a retry sends the whole body again).
    func rewind() { offset = 0 }

    /// Reads the next slice into `buffer`; returns the bytes read (0 at the end).
    package func read(into buffer: inout [UInt8]) -> Result<Int, SystemError> {
        buffer.withUnsafeMutableBytes { read(into: $0) }
    }

    /// The next slice of at most `maximumCount` bytes, in a new array that is never
    /// zero-filled first (empty at the end).
    package func readSlice(maximumCount: Int) -> Result<[UInt8], SystemError> {
        var failure: SystemError?
        let slice = [UInt8](unsafeUninitializedCapacity: maximumCount) { buffer, initialized in
            switch read(into: UnsafeMutableRawBufferPointer(buffer)) {
            case .success(let count): initialized = count
            case .failure(let error): failure = error; initialized = 0
            }
        }
        if let failure { return .failure(failure) }
        return .success(slice)
    }

    private func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SystemError> {
        let wanted = Int(min(Int64(buffer.count), size - offset))
        guard wanted > 0 else { return .success(0) }
        let count = pread(fd, buffer.baseAddress, wanted, off_t(offset))
        guard count >= 0 else { return .failure(SystemError(errno: errno, syscall: "pread")) }
        // A file that shrank while being sent would make the request lie about its length.
        guard count > 0 else { return .failure(SystemError(errno: EIO, syscall: "pread (file shrank)")) }
        offset += Int64(count)
        return .success(count)
    }
}
