/// The command line of `ferry-pin`, read with the same conventions as `ferry` (curl's): long
/// options take no `=value`, a unique prefix of a long option is accepted, `--` ends the
/// options, and every other argument is a certificate file (`-` is standard input).
struct PinArguments: Equatable, Sendable {
    /// The certificate files, in order.
    var files: [String] = []
    /// `--json`: one JSON array instead of text blocks.
    var json = false
    /// `-h, --help`.
    var showHelp = false
    /// `-V, --version`.
    var showVersion = false

    /// The options, long name first. `--connect HOST:PORT` and `--servername NAME` join them
    /// when Ferry's TLS client can fetch a live chain (see ARCHITECTURE.md).
    private static let flags = [
        Flag(long: "json", short: nil) { $0.json = true },
        Flag(long: "help", short: "h") { $0.showHelp = true },
        Flag(long: "version", short: "V") { $0.showVersion = true },
    ]

    /// An option without a value.
    private struct Flag: Sendable {
        let long: String
        let short: Character?
        let apply: @Sendable (inout PinArguments) -> Void
    }

    /// Parses `arguments` (without the program name).
    /// - Throws: ``PinFailure`` with exit code 2 for an unknown or ambiguous option, or no file.
    static func parse(_ arguments: [String]) throws(PinFailure) -> PinArguments {
        var result = PinArguments()
        var onlyFiles = false
        for argument in arguments {
            if onlyFiles || !argument.hasPrefix("-") || argument == "-" {
                result.files.append(argument)
            } else if argument == "--" {
                onlyFiles = true
            } else if argument.hasPrefix("--") {
                try longFlag(String(argument.dropFirst(2))).apply(&result)
            } else {
                for letter in argument.dropFirst() {
                    guard let flag = flags.first(where: { $0.short == letter }) else {
                        throw .usage("option -\(letter): is unknown")
                    }
                    flag.apply(&result)
                }
            }
        }
        if result.files.isEmpty && !result.showHelp && !result.showVersion {
            throw .usage("no certificate file specified!")
        }
        return result
    }

    /// An exact name wins; otherwise a prefix must match exactly one option.
    private static func longFlag(_ name: String) throws(PinFailure) -> Flag {
        if let exact = flags.first(where: { $0.long == name }) { return exact }
        let matches = name.isEmpty ? [] : flags.filter { $0.long.hasPrefix(name) }
        if matches.count > 1 { throw .usage("option --\(name): is ambiguous") }
        guard let match = matches.first else { throw .usage("option --\(name): is unknown") }
        return match
    }

    /// What `ferry-pin --help` prints.
    static let help = """
    Usage: ferry-pin [options...] <file>...
    Prints, for every certificate in each PEM or DER file ('-' reads standard input), its
    subject, issuer, names, validity, SHA-256 fingerprint and SPKI pin (sha256//BASE64, as
    curl's --pinnedpubkey and ferry's --pinnedpubkey take it).
         --json      One JSON array of objects instead of text
     -h, --help      This help text
     -V, --version   Show version number and quit
    Exit codes: 0 ok, 2 bad usage, 77 unreadable or invalid certificate file.

    """
}
