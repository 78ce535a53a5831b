#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// Reads certificate and key files and lists certificate directories, failing with the
/// system's own words.
///
/// POSIX calls rather than `Data(contentsOf:)` and `FileManager`: FoundationEssentials' errors
/// carry no readable text, and the full Foundation that has it costs every Ferry binary tens of
/// megabytes and about 4 MiB of memory (ARCHITECTURE.md, "Foundation").
enum CertificateFiles {
    /// The largest file read. Certificates, bundles and keys are kilobytes; a bigger file is a
    /// wrong path (a log, a device), and is refused before it fills memory.
    static let limit = 16 << 20

    /// The bytes of `file`.
    /// - Throws: ``CertificateError/Kind-swift.struct/unreadableFile``, naming the path and the
    ///   cause ("No such file or directory", "Is a directory", "Permission denied", too large).
    static func read(_ file: URL) throws(CertificateError) -> [UInt8] {
        let path = file.path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path, errno: errno) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw failure(path, errno: EISDIR) }
        guard info.st_size <= limit else { throw tooLarge(path) }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path, errno: errno)
            }
            guard bytes.count + count <= limit else { throw tooLarge(path) }
            bytes.append(contentsOf: buffer[..<count])
        }
    }

    /// The names of the entries of `directory` that are not directories (symbolic links are
    /// followed; a dangling one is left out), in no particular order.
    /// - Throws: ``CertificateError/Kind-swift.struct/unreadableFile``, naming the path and the cause.
    static func fileNames(in directory: URL) throws(CertificateError) -> [String] {
        let path = directory.path
        guard let stream = opendir(path) else { throw failure(path, errno: errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            var info = stat()
            guard stat(path + "/" + name, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else { continue }
            names.append(name)
        }
        return names
    }

    private static func failure(_ path: String, errno code: Int32) -> CertificateError {
        CertificateError(.unreadableFile, detail: "\(path): \(String(cString: strerror(code)))")
    }

    private static func tooLarge(_ path: String) -> CertificateError {
        CertificateError(.unreadableFile, detail: "\(path): larger than \(limit >> 20) MiB, not a certificate or key file")
    }
}
