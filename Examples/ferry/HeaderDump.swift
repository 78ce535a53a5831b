#if canImport(Glibc)
import Glibc
#endif
import Ferry
import Synchronization

/// curl's `-D FILE` (`--dump-header`): every response head of the run, each hop's with `-L`,
/// written as `-i` writes them, to one file (`-` is standard output).
///
/// As curl, the file is created (or truncated) before the first transfer, so a run that gets
/// no head leaves it empty, and the heads of every transfer are appended; transfers running at
/// once (`-Z`) write whole heads, one at a time.
final class HeaderDump: Sendable {
    private let path: String
    private let console: Console
    /// The open file (-1 for standard output, or when it could not be opened).
    private let descriptor: Int32
    /// Why the file could not be opened, for every transfer's head.
    private let openFailure: String?
    /// One head written at a time.
    private let lock = Mutex(())

    /// The dump `options` ask for, or nil without `-D`.
    static func make(for options: Options, console: Console) -> HeaderDump? {
        options.dumpHeader.map { HeaderDump(path: $0, console: console) }
    }

    private init(path: String, console: Console) {
        self.path = path
        self.console = console
        let fd = path == "-" ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        descriptor = fd
        openFailure = path != "-" && fd < 0 ? "Failed to open the file \(path): \(String(cString: strerror(errno)))" : nil
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
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
        if let openFailure { throw NetworkError(.cannotWriteToFile, reason: openFailure) }
        let failure: String? = lock.withLock { _ in
            Console.writeAll(descriptor, bytes) ? nil : "Failed writing header to \(path): \(String(cString: strerror(errno)))"
        }
        if let failure { throw NetworkError(.cannotWriteToFile, reason: failure) }
    }
}
