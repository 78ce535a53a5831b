#if canImport(Glibc)
import Glibc
#endif
import Ferry

/// Where one transfer's output goes: standard output, or the `-o` file.
///
/// The file is created (or truncated) on the first write or at the end of a successful
/// transfer, never before: as curl, a transfer that fails to connect leaves no empty file
/// behind. Failures are ``NetworkError`` `cannotWriteToFile`, which is curl's exit 23.
final class OutputSink {
    private var path: String?
    private let console: Console
    private var fd: Int32 = -1
    /// The file must not exist yet (`-J`'s server-named file).
    private var exclusive = false

    /// - Parameter path: The `-o` file, or nil for standard output.
    init(path: String?, console: Console) {
        self.path = path
        self.console = console
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// `-J`: writes to `path`, which must not exist, instead; before anything was written.
    func retarget(to path: String) {
        precondition(fd < 0, "retargeted after the file was opened")
        self.path = path
        exclusive = true
    }

    /// Writes `bytes`.
    /// - Throws: `cannotWriteToFile` when the file cannot be opened or written, or standard
    ///   output is closed.
    func write(_ bytes: [UInt8]) throws(NetworkError) {
        guard !bytes.isEmpty else { return }
        guard path != nil else {
            guard console.writeOut(bytes) else { throw Self.writeFailure() }
            return
        }
        try open()
        guard Console.writeAll(fd, bytes) else { throw Self.writeFailure() }
    }

    /// Creates the file if nothing was written (an empty body still makes a file), and closes it.
    func finish() throws(NetworkError) {
        guard path != nil else { return }
        try open()
        let result = close(fd)
        fd = -1
        guard result == 0 else { throw Self.writeFailure() }
    }

    private func open() throws(NetworkError) {
        guard fd < 0, let path else { return }
        fd = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC), 0o666)
        guard fd >= 0 else {
            let text = String(cString: strerror(errno))
            throw NetworkError(.cannotWriteToFile, reason: "Failed to open the file \(path): \(text)")
        }
    }

    private static func writeFailure() -> NetworkError {
        NetworkError(.cannotWriteToFile, reason: "Failure writing output to destination")
    }
}
