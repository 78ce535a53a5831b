#if canImport(Glibc)
import Glibc
#endif
import Ferry
import Synchronization

/// curl's `-D FILE` (`--dump-header`): every response head of the run, each hop's with `-L`,
/// written as `-i` writes them, to one file (`-` is standard output).
///
/// As curl, the file is created (or truncated) by the first head and the heads of later
/// transfers are appended; transfers running at once (`-Z`) write whole heads, one at a time.
final class HeaderDump: Sendable {
    private let path: String
    private let console: Console
    /// The open file, or -1 before the first head (and for standard output).
    private let descriptor = Mutex<Int32>(-1)

    /// The dump `options` ask for, or nil without `-D`.
    static func make(for options: Options, console: Console) -> HeaderDump? {
        options.dumpHeader.map { HeaderDump(path: $0, console: console) }
    }

    private init(path: String, console: Console) {
        self.path = path
        self.console = console
    }

    deinit {
        let fd = descriptor.withLock { $0 }
        if fd >= 0 { close(fd) }
    }

    /// Writes `heads`.
    /// - Throws: `cannotWriteToFile` (curl's exit 23) naming the file and the system's reason.
    func write(_ heads: String) throws(NetworkError) {
        guard !heads.isEmpty else { return }
        let bytes = Array(heads.utf8)
        if path == "-" {
            guard console.writeOut(bytes) else { throw NetworkError(.cannotWriteToFile, reason: "Failed writing header") }
            return
        }
        let failure: String? = descriptor.withLock { fd in
            if fd < 0 {
                fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
                if fd < 0 { return "Failed to open the file \(path): \(String(cString: strerror(errno)))" }
            }
            return Console.writeAll(fd, bytes) ? nil : "Failed writing header to \(path): \(String(cString: strerror(errno)))"
        }
        if let failure { throw NetworkError(.cannotWriteToFile, reason: failure) }
    }
}
