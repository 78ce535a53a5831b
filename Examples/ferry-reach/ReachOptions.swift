/// What a `ferry-reach` command line asks for (CLI.md):
/// `ferry-reach [--host NAME | --address IP] [--once] [--json]`.
struct ReachOptions: Equatable {
    /// What to watch.
    enum Target: Equatable {
        /// General internet reachability.
        case internet
        /// One host name (`--host`).
        case host(String)
        /// One numeric address (`--address`).
        case address(String)
    }

    var target = Target.internet
    /// Print the first known status and exit.
    var once = false
    /// One JSON object per line.
    var json = false
    /// `-h`/`--help`: print the usage and exit.
    var showHelp = false

    static let usage = """
        Usage: ferry-reach [--host NAME | --address IP] [--once] [--json]
        Prints the network's reachability (or one destination's), then one line per change.
          --host NAME     watch one host name (resolved again after every network change)
          --address IP    watch one IPv4 or IPv6 address (the kernel's route lookup for it)
          --once          print the first known status and exit
          --json          print {"status":…,"via":…,"interface":…} objects, one per line
          -h, --help      print this help
        Statuses: not-reachable, reachable via ethernet|wifi|wwan|other (IFNAME), unknown.
        Exit codes: 0 ok, 1 monitoring could not start, 2 bad usage.

        """

    /// A command-line mistake, with the words to print.
    struct UsageError: Error, Equatable {
        var message: String
    }

    /// Reads `arguments` (without the program name). Spelling as `ferry`: long options take
    /// their value from the next argument.
    /// - Throws: ``UsageError`` for an unknown option, a missing value, `--host` together with
    ///   `--address` (or either twice), or any operand.
    static func parse(_ arguments: [String]) throws(UsageError) -> ReachOptions {
        var options = ReachOptions()
        var targetOption: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--once": options.once = true
            case "--json": options.json = true
            case "-h", "--help": options.showHelp = true
            case "--host", "--address":
                guard index < arguments.count else { throw UsageError(message: "option \(argument): requires parameter") }
                let value = arguments[index]
                index += 1
                if let earlier = targetOption {
                    throw UsageError(message: "option \(argument): cannot be combined with \(earlier)")
                }
                guard !value.isEmpty else { throw UsageError(message: "option \(argument): the value is empty") }
                targetOption = argument
                options.target = argument == "--host" ? .host(value) : .address(value)
            default:
                let what = argument.hasPrefix("-") ? "option \(argument): is unknown" : "unexpected argument: \(argument)"
                throw UsageError(message: what)
            }
        }
        return options
    }
}
