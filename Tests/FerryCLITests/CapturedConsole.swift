#if canImport(Glibc)
import Glibc
#endif
@testable import ferry

/// A ``Console`` writing into pipes, so tests can read what ferry printed.
/// Outputs here are small: they fit in the pipe buffer without a concurrent reader.
final class CapturedConsole {
    let console: Console
    private var outPipe: [Int32] = [-1, -1]
    private var errPipe: [Int32] = [-1, -1]

    init() {
        _ = pipe(&outPipe)
        _ = pipe(&errPipe)
        // A child another test starts meanwhile must not keep a write end open, or finish()
        // would wait for that child's end to see the end of the output. (ChildProcess also
        // closes every inherited descriptor above 2; pipe2 is a GNU extension Swift lacks.)
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        console = Console(outputFD: outPipe[1], errorFD: errPipe[1])
    }

    deinit {
        for fd in outPipe + errPipe where fd >= 0 { close(fd) }
    }

    /// Closes the write ends and returns everything written to (stdout, stderr).
    func finish() -> (out: String, err: String) {
        close(outPipe[1])
        close(errPipe[1])
        outPipe[1] = -1
        errPipe[1] = -1
        return (Self.drain(outPipe[0]), Self.drain(errPipe[0]))
    }

    private static func drain(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
