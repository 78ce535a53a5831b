/// Reads a command line with curl's spelling rules into ``Options``.
///
/// curl's rules, matched on purpose so scripts can swap one tool for the other:
/// - short flags combine (`-sS`, `-sSf`); a short option that takes a value takes the rest of
///   the word (`-XPOST`, `-sXPOST`) or, when nothing is left, the next argument (`-X POST`);
/// - a long option takes its value from the next argument only: `--max-time=5` is an unknown
///   option, as in curl;
/// - a long option may be shortened to any unique prefix (`--verb`), and a flag negated with
///   `--no-` (`--no-silent`);
/// - every other argument is a URL, options after URLs apply to all of them, and `--` ends
///   the options;
/// - `-K FILE` / `--config FILE` reads more options from a file (``ConfigFile``), in place.
struct ArgumentParser {
    private let specs: [OptionSpec]

    init(specs: [OptionSpec] = OptionSpec.all) {
        self.specs = specs
    }

    /// Parses `arguments` (without the program name): an array, or the process's own
    /// ``CommandLineArguments``, read in place.
    /// - Throws: ``UsageError`` for an unknown or ambiguous option, a missing or malformed
    ///   value, or no URL at all.
    func parse<Arguments: RandomAccessCollection<String>>(_ arguments: Arguments) throws(UsageError) -> Options
    where Arguments.Index == Int {
        var options = Options()
        var index = arguments.startIndex
        var onlyURLs = false
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if onlyURLs || !argument.hasPrefix("-") || argument == "-" {
                options.addURL(argument)
            } else if argument == "--" {
                onlyURLs = true
            } else if argument.hasPrefix("--") {
                try parseLong(String(argument.dropFirst(2)), arguments, &index, &options)
            } else {
                try parseShortCluster(Array(argument.dropFirst()), arguments, &index, &options)
            }
        }
        if options.urls.isEmpty && !options.showHelp && !options.showVersion {
            throw UsageError("no URL specified!")
        }
        return options
    }

    private func parseLong<Arguments: RandomAccessCollection<String>>(
        _ name: String, _ arguments: Arguments, _ index: inout Int, _ options: inout Options
    ) throws(UsageError) where Arguments.Index == Int {
        guard let (spec, enabled) = try lookUpLong(name) else { throw UsageError("option --\(name): is unknown") }
        switch spec.action {
        case .flag(let apply):
            apply(&options, enabled)
        case .value:
            guard index < arguments.endIndex else { throw UsageError("option --\(spec.long): requires parameter") }
            let value = arguments[index]
            index += 1
            try apply(spec, value, &options)
        }
    }

    /// Applies an option that takes a value; `--config` reads its file here, in order.
    private func apply(_ spec: OptionSpec, _ value: String, _ options: inout Options) throws(UsageError) {
        guard case .value(let apply) = spec.action else { return }
        guard spec.long == "config" else { return try apply(&options, value) }
        options.configDepth += 1
        defer { options.configDepth -= 1 }
        // curl reads nested config files; a file that names itself must not loop.
        guard options.configDepth <= 8 else { throw UsageError("config files nested too deep at '\(value)'", suggestsHelp: false) }
        try ConfigFile.forEachEntry(in: value) { entry throws(UsageError) in
            try applyEntry(entry, &options)
        }
    }

    /// One line of a config file, through the same table as the command line.
    private func applyEntry(_ entry: ConfigFile.Entry, _ options: inout Options) throws(UsageError) {
        let spec: OptionSpec
        var enabled = true
        if entry.option.hasPrefix("--") {
            guard let found = try lookUpLong(String(entry.option.dropFirst(2))) else {
                throw UsageError("config file: option \(entry.option): is unknown")
            }
            (spec, enabled) = found
        } else {
            let letters = Array(entry.option.dropFirst())
            guard letters.count == 1, let found = specs.first(where: { $0.short == letters[0] }) else {
                throw UsageError("config file: option \(entry.option): is unknown")
            }
            spec = found
        }
        switch spec.action {
        case .flag(let apply):
            apply(&options, enabled)
        case .value:
            guard let parameter = entry.parameter else {
                throw UsageError("config file: option --\(spec.long): requires parameter")
            }
            try apply(spec, parameter, &options)
        }
    }

    /// A long option by name, or a flag by its `no-` form (then `enabled` is false).
    private func lookUpLong(_ name: String) throws(UsageError) -> (spec: OptionSpec, enabled: Bool)? {
        if let spec = try lookUp(name, flagsOnly: false) { return (spec, true) }
        guard name.hasPrefix("no-"), let spec = try lookUp(String(name.dropFirst(3)), flagsOnly: true) else { return nil }
        return (spec, false)
    }

    /// An exact name wins; otherwise a prefix must match exactly one option (curl's rule).
    private func lookUp(_ name: String, flagsOnly: Bool) throws(UsageError) -> OptionSpec? {
        let candidates = specs.filter { !flagsOnly || !$0.takesValue }
        if let exact = candidates.first(where: { $0.long == name }) { return exact }
        guard !name.isEmpty else { return nil }
        let matches = candidates.filter { $0.long.hasPrefix(name) }
        if matches.count > 1 { throw UsageError("option --\(name): is ambiguous") }
        return matches.first
    }

    private func parseShortCluster<Arguments: RandomAccessCollection<String>>(
        _ letters: [Character], _ arguments: Arguments, _ index: inout Int, _ options: inout Options
    ) throws(UsageError) where Arguments.Index == Int {
        var position = 0
        while position < letters.count {
            let letter = letters[position]
            position += 1
            guard let spec = specs.first(where: { $0.short == letter }) else {
                throw UsageError("option -\(letter): is unknown")
            }
            switch spec.action {
            case .flag(let apply):
                apply(&options, true)
            case .value:
                let value: String
                if position < letters.count {
                    value = String(letters[position...])
                } else if index < arguments.endIndex {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError("option -\(letter): requires parameter")
                }
                try self.apply(spec, value, &options)
                return
            }
        }
    }
}
