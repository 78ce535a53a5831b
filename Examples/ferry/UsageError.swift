/// A command line that cannot run: curl's exit code 2 with a message naming the problem.
struct UsageError: Error, Equatable, Sendable {
    /// The message after `ferry: `, such as `option --foo: is unknown`.
    var message: String
    /// Whether to add curl's "try --help" hint (curl adds it to option errors only).
    var suggestsHelp: Bool

    init(_ message: String, suggestsHelp: Bool = true) {
        self.message = message
        self.suggestsHelp = suggestsHelp
    }

    /// The lines printed on standard error, each without its newline.
    var lines: [String] {
        var lines = ["ferry: \(message)"]
        if suggestsHelp { lines.append("ferry: try 'ferry --help' for more information") }
        return lines
    }
}
