/// A command line that cannot run: curl's exit code 2 (or 26 for a file it names that cannot
/// be read, as `-K`'s) with a message naming the problem.
struct UsageError: Error, Equatable, Sendable {
    /// The message after `ferry: `, such as `option --foo: is unknown`.
    var message: String
    /// Whether to add curl's "try --help" hint (curl adds it to option errors only).
    var suggestsHelp: Bool
    /// The exit code.
    var exitCode: ExitCode

    init(_ message: String, suggestsHelp: Bool = true, exitCode: ExitCode = .usage) {
        self.message = message
        self.suggestsHelp = suggestsHelp
        self.exitCode = exitCode
    }

    /// The lines printed on standard error, each without its newline.
    var lines: [String] {
        var lines = ["ferry: \(message)"]
        if suggestsHelp { lines.append("ferry: try 'ferry --help' for more information") }
        return lines
    }
}
