/// The command line of `ferry-pin`, read with the same conventions as `ferry` (curl's): long
/// options take no `=value` (the value is the next argument), a unique prefix of a long option
/// is accepted, `--` ends the options, and every other argument is a certificate file (`-` is
/// standard input).
struct PinArguments: Equatable, Sendable {
    /// The certificate files, in order.
    var files: [String] = []
    /// `--connect HOST:PORT`: the live server whose chain to print, instead of files.
    var connect: String?
    /// `--servername NAME`: the name to ask the `--connect` server for (SNI, and the name the
    /// chain is verified for), connecting to HOST all the same.
    var serverName: String?
    /// `--cacert FILE`: the trust roots the live chain's `verify:` line is judged against
    /// (the system's by default).
    var caCertificateFile: String?
    /// `--json`: one JSON array instead of text blocks.
    var json = false
    /// `-h, --help`.
    var showHelp = false
    /// `-V, --version`.
    var showVersion = false

    /// The options, long name first.
    private static let options = [
        Option(long: "json", short: nil) { arguments, _ in arguments.json = true },
        Option(long: "connect", short: nil, takesValue: true) { arguments, value in arguments.connect = value },
        Option(long: "servername", short: nil, takesValue: true) { arguments, value in arguments.serverName = value },
        Option(long: "cacert", short: nil, takesValue: true) { arguments, value in arguments.caCertificateFile = value },
        Option(long: "help", short: "h") { arguments, _ in arguments.showHelp = true },
        Option(long: "version", short: "V") { arguments, _ in arguments.showVersion = true },
    ]

    /// An option, with or without a value.
    private struct Option: Sendable {
        let long: String
        let short: Character?
        var takesValue = false
        let apply: @Sendable (inout PinArguments, String) -> Void
    }

    /// Parses `arguments` (without the program name).
    /// - Throws: ``PinFailure`` with exit code 2 for an unknown or ambiguous option, a missing
    ///   value, files together with `--connect`, `--servername` without `--connect`, or nothing
    ///   to inspect.
    static func parse(_ arguments: [String]) throws(PinFailure) -> PinArguments {
        var result = PinArguments()
        var onlyFiles = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyFiles || !argument.hasPrefix("-") || argument == "-" {
                result.files.append(argument)
            } else if argument == "--" {
                onlyFiles = true
            } else if argument.hasPrefix("--") {
                let option = try longOption(String(argument.dropFirst(2)))
                var value = ""
                if option.takesValue {
                    guard index < arguments.count else { throw .usage("option --\(option.long): requires parameter") }
                    value = arguments[index]
                    index += 1
                }
                option.apply(&result, value)
            } else {
                for letter in argument.dropFirst() {
                    guard let option = options.first(where: { $0.short == letter }) else {
                        throw .usage("option -\(letter): is unknown")
                    }
                    option.apply(&result, "")
                }
            }
        }
        try result.validate()
        return result
    }

    private func validate() throws(PinFailure) {
        if showHelp || showVersion { return }
        if connect != nil && !files.isEmpty {
            throw .usage("--connect inspects a server: give no certificate file with it")
        }
        if serverName != nil && connect == nil { throw .usage("--servername needs --connect HOST:PORT") }
        if files.isEmpty && connect == nil { throw .usage("no certificate file specified!") }
    }

    /// An exact name wins; otherwise a prefix must match exactly one option.
    private static func longOption(_ name: String) throws(PinFailure) -> Option {
        if let exact = options.first(where: { $0.long == name }) { return exact }
        let matches = name.isEmpty ? [] : options.filter { $0.long.hasPrefix(name) }
        if matches.count > 1 { throw .usage("option --\(name): is ambiguous") }
        guard let match = matches.first else { throw .usage("option --\(name): is unknown") }
        return match
    }

    /// What `ferry-pin --help` prints.
    static let help = """
    Usage: ferry-pin [options...] <file>...
           ferry-pin [options...] --connect <host:port> [--servername <name>]
    Prints, for every certificate in each PEM or DER file ('-' reads standard input), or of the
    chain a live server sends (through Ferry's own TLS; no HTTP request is made), its subject,
    issuer, names, validity, SHA-256 fingerprint and SPKI pin (sha256//BASE64, as curl's
    --pinnedpubkey and ferry's --pinnedpubkey take it).
         --connect <host:port>  Fetch the chain of this TLS server ('[::1]:443' for IPv6)
         --servername <name>    Ask the server for NAME (SNI) and verify for NAME, while
                                connecting to host all the same (as curl's --resolve)
         --cacert <file>        Roots for the live chain's 'verify:' line (default: system)
         --json                 One JSON array of objects instead of text
     -h, --help                 This help text
     -V, --version              Show version number and quit
    Any chain is shown, trusted or not; 'verify:' says what the default evaluation thinks of it.
    Exit codes: 0 ok, 2 bad usage, 6 cannot resolve host, 7 cannot connect, 28 timeout,
    35 TLS handshake failure, 77 unreadable or invalid certificate file.

    """
}
