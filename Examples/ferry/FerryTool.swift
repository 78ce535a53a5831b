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
        var builder: RequestBuilder
        do throws(UsageError) {
            options = try ArgumentParser().parse(arguments)
            if options.showHelp || options.showVersion {
                console.writeOut(options.showHelp ? HelpText.usage : "ferry \(version) (Ferry)\n")
                return .ok
            }
            try options.validateContinuation()
            try options.validateRemoteHeaderName()
            let postData = PostData(pieces: options.data)
            if !options.silent { console.writeErrorLines(options.warnings + postData.warnings + options.form.flatMap(\.warnings)) }
            builder = try RequestBuilder(options: options, postData: postData)
        } catch {
            console.writeErrorLines(error.lines)
            return error.exitCode
        }
        if !options.form.isEmpty {
            // After the usage checks, as curl: `-F a=@missing -d x` is a usage error first.
            do {
                builder = builder.sending(try FormBody.make(options.form))
            } catch {
                return report(formFailure: error, options: options, console: console)
            }
        }
        do {
            // Every -H, -b and -u is checked before the first byte goes anywhere (CLI.md: exit
            // 2); the reason names the option.
            try builder.validate()
        } catch {
            console.writeErrorLines(UsageError(error.reason, suggestsHelp: false).lines)
            return ExitCode(error)
        }
        if options.outputs.count > options.urls.count && !options.silent {
            console.writeErrorLines(["Warning: Got more output options than URLs"])
        }
        let writeOut = options.writeOut.map { WriteOut(loadFormat($0)) }
        let tls = TLSSetup(options.tls)
        return await Runner(options: options, builder: builder, console: console, writeOut: writeOut, tls: tls,
                            cookies: CookieSetup(options), headerDump: HeaderDump.make(for: options, console: console)).run()
    }

    /// A form that cannot be built: a type or name Ferry refuses is bad usage (exit 2); a file
    /// that cannot be read is curl's exit 26, with curl's sentence and the cause.
    private static func report(formFailure error: NetworkError, options: Options, console: Console) -> ExitCode {
        let code = ExitCode(error)
        if code == .usage {
            console.writeErrorLines(UsageError("option -F: \(error.reason)", suggestsHelp: false).lines)
        } else if options.showsErrors {
            console.writeErrorLines(["ferry: (\(code)) Failed to open/read local data from file/application (\(error.reason))"])
        }
        return code
    }

    /// `-w @file` reads the format from a file (`@-`: standard input), as curl, whose 7.88
    /// drops the file's line breaks: a line break in the output is written `\n`.
    static func loadFormat(_ argument: String, readFile: PostData.FileReader = PostData.readFile) -> String {
        guard argument.hasPrefix("@") else { return argument }
        let bytes = readFile(String(argument.dropFirst())) ?? []
        return String(decoding: bytes.filter { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }, as: UTF8.self)
    }
}
