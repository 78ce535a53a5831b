#if canImport(Glibc)
import Glibc
#endif
import Ferry
import FoundationEssentials

/// `ferry`: a curl-compatible command-line client on Ferry's public API (see CLI.md).
///
/// How a run flows, file by file: ``ArgumentParser`` (curl's spelling rules) reads the flags
/// listed in ``OptionSpec`` into ``Options``; ``PostData`` joins `-d`/`--json` pieces and
/// ``RequestBuilder`` turns them, with ``HeaderArgument`` and ``QueryEncoder``, into requests;
/// ``ConfigurationFactory`` sets up the one session; ``Runner`` runs the URLs (in order, or
/// with ``BoundedTaskGroup`` for `-Z`); ``Transfer`` is the only file that calls `Session`;
/// ``ExitCode`` holds the error table; ``WriteOut``, ``HeadFormatter`` and ``ProgressMeter``
/// only format text. Everything but `Transfer` is tested without a network.
@main
struct FerryTool {
    static let version = "0.1"

    static func main() async {
        // A closed pipe on standard output must be a write error (curl's exit 23), not a
        // silent death by SIGPIPE. The library never touches signals; the tool may.
        signal(SIGPIPE, SIG_IGN)
        let code = await run(CommandLineArguments(), console: Console())
        exit(code.rawValue)
    }

    /// Runs a whole command line and returns curl's exit code for it.
    static func run<Arguments: RandomAccessCollection<String>>(_ arguments: Arguments, console: Console) async -> ExitCode
    where Arguments.Index == Int {
        let options: Options
        let builder: RequestBuilder
        do throws(UsageError) {
            options = try ArgumentParser().parse(arguments)
            if options.showHelp || options.showVersion {
                console.writeOut(options.showHelp ? HelpText.usage : "ferry \(version) (Ferry)\n")
                return .ok
            }
            let postData = PostData(pieces: options.data)
            if !options.silent { console.writeErrorLines(postData.warnings) }
            builder = try RequestBuilder(options: options, postData: postData)
        } catch {
            console.writeErrorLines(error.lines)
            return .usage
        }
        do {
            // Every -H is checked before the first byte goes anywhere (CLI.md: exit 2).
            try builder.validate()
        } catch {
            console.writeErrorLines(UsageError("option -H: \(error.reason)", suggestsHelp: false).lines)
            return ExitCode(error)
        }
        if options.outputs.count > options.urls.count && !options.silent {
            console.writeErrorLines(["Warning: Got more output options than URLs"])
        }
        let writeOut = options.writeOut.map { WriteOut(loadFormat($0)) }
        let tls = TLSSetup(options.tls)
        return await Runner(options: options, builder: builder, console: console, writeOut: writeOut, tls: tls,
                            cookies: CookieSetup(options)).run()
    }

    /// `-w @file` reads the format from a file (`@-`: standard input), as curl.
    private static func loadFormat(_ argument: String) -> String {
        guard argument.hasPrefix("@") else { return argument }
        let bytes = PostData.readFile(String(argument.dropFirst())) ?? []
        return String(decoding: bytes, as: UTF8.self)
    }
}
