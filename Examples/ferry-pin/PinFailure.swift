/// Why `ferry-pin` stops: an exit code in curl's numbering and one line for standard error.
struct PinFailure: Error, Equatable, Sendable {
    /// The process exit status.
    let exitCode: Int32
    /// The message after `ferry-pin: `, naming the cause.
    let message: String

    /// A bad command line: exit 2.
    static func usage(_ message: String) -> PinFailure {
        PinFailure(exitCode: 2, message: message)
    }

    /// A file that cannot be read or holds no valid certificate: exit 77, curl's "bad CA file".
    static func badFile(_ message: String) -> PinFailure {
        PinFailure(exitCode: 77, message: message)
    }

    /// Standard output could not be written (a closed pipe): exit 23, curl's write error.
    static let writeFailed = PinFailure(exitCode: 23, message: "failure writing output to destination")

    /// The one line printed on standard error, without its newline; a usage error points to
    /// `--help` on the same line.
    var line: String {
        exitCode == 2 ? "ferry-pin: \(message) (try 'ferry-pin --help')" : "ferry-pin: \(message)"
    }
}
