import FoundationEssentials
/// Everything the command line asked for, before any of it is turned into requests.
///
/// A plain value filled by ``ArgumentParser``: parsing never touches the network or the file
/// system, so every flag combination can be tested on its own.
struct Options: Sendable, Equatable {
    /// One `-d`/`--data-binary`/`--json` argument, kept raw so `@file` is read only when the
    /// request is built (as curl does) and never during parsing.
    struct DataPiece: Sendable, Equatable {
        enum Kind: Sendable, Equatable {
            /// `-d`, `--data`, `--data-ascii`: `@file` is read with CR and LF stripped.
            case ascii
            /// `--data-binary`: `@file` is read byte for byte.
            case binary
            /// `--data-raw`: never reads a file, `@` is literal.
            case raw
            /// `--json`: like `--data-binary`, joined to other JSON pieces without a separator.
            case json
            /// `--data-urlencode`: `content`, `name=content` or `[name]@file`, the content
            /// percent-encoded (``QueryEncoder/formEncoded(_:)``).
            case urlencode
        }

        var kind: Kind
        var value: String
    }

    /// One `-o FILE` or `-O`, paired with a URL in order, as curl pairs them.
    enum Output: Sendable, Equatable, ExpressibleByStringLiteral {
        /// `-o FILE` (`-` is standard output).
        case path(String)
        /// `-O`: a file in the current directory named as the URL's last path segment.
        case remoteName

        init(stringLiteral value: String) { self = .path(value) }

        /// The file for `url`; nil for `-O` on a URL whose path ends in `/` (curl's "Remote
        /// file name has no length!").
        func path(for url: String) -> String? {
            switch self {
            case .path(let path): return path
            case .remoteName: return Self.remoteName(of: url)
            }
        }

        /// curl's `-O` name: the last segment of the URL's path, as the URL writes it (escapes
        /// kept), without the query; nil when there is none.
        static func remoteName(of typed: String) -> String? {
            guard let path = RequestBuilder.url(from: typed)?.path(percentEncoded: true),
                  let name = path.split(separator: "/", omittingEmptySubsequences: false).last,
                  !name.isEmpty, name != ".", name != ".." else { return nil }
            return String(name)
        }
    }

    /// One URL and the `-o` or `-O` it was paired with (nil: none).
    struct Job: Sendable, Equatable {
        var url: String
        /// The file to write (`-` or nil: standard output).
        var output: String?
        /// `-O` found no file name in the URL: curl's exit 23, before anything is fetched
        /// unless `-J` may take the server's name.
        var lacksRemoteName = false
        /// The output came from `-O` (`-J` may rename it).
        var isRemoteName = false

        /// The file to write, or nil for standard output (no `-o`, or `-o -` as in curl).
        var filePath: String? { output == "-" ? nil : output }

        /// Whether the body goes to standard output without the user asking for it with
        /// `-o -`: curl then refuses to put binary data on a terminal.
        var isImplicitStandardOutput: Bool { output == nil }
    }

    var urls: [String] = []
    /// `-o` files and `-O`s in the order given; they pair with the URLs in order, as curl does.
    var outputs: [Output] = []
    var method: String?
    var headers: [String] = []
    /// What reading the command line warned of (a `-H @file` that cannot be read), printed
    /// unless `-s`.
    var warnings: [String] = []
    var data: [DataPiece] = []
    /// `-F`/`--form` and `--form-string` parts, in order (a `multipart/form-data` POST).
    var form: [FormArgument] = []
    var useGet = false
    /// `-r RANGE`: `Range: bytes=RANGE` on a request without a body, as curl (`-C` wins).
    var range: String?
    var include = false
    var headOnly = false
    /// `-D FILE`: every response head, as `-i` writes them, to FILE (`-`: standard output).
    var dumpHeader: String?
    /// `-J`: with `-O`, the file is named by the response's Content-Disposition, if it names one.
    var remoteHeaderName = false
    var maxTime: Double?
    var connectTimeout: Double?
    var compressed = false
    /// `-L`: follow redirects, at most ``maxRedirects`` (curl's default is 50).
    var followRedirects = false
    var maxRedirects = 50
    /// `--location-trusted`: credentials and their fields go along to other origins too.
    var locationTrusted = false
    /// `-u user:password` (a missing `:password` is an empty one: ferry does not prompt).
    var user: String?
    /// `--basic` (the default), `--digest`, `--anyauth`: what `-u` answers.
    var authScheme = AuthScheme.basic
    /// What `-x` named: a proxy URL, checked when parsed.
    enum ProxyArgument: Sendable, Equatable {
        /// `-x ""`: no proxy at all, not even the environment's.
        case none
        /// The proxy for every URL.
        case url(URL)
    }

    /// `-x`; nil reads `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` as curl does.
    var proxy: ProxyArgument?
    /// `--noproxy LIST`: hosts reached directly, instead of `no_proxy`'s (curl's list syntax).
    var noProxy: String?
    /// `-U user:password`: the proxy's credential, sent up front with Basic.
    var proxyUser: String?
    /// `--proto LIST`: the protocols a transfer may use (nil: all).
    var protocols: ProtocolList?
    /// `--proto-redir LIST`: the protocols a redirect may lead to (nil: http and https).
    var redirectProtocols: ProtocolList?
    /// `-A`: the User-Agent to send instead of Ferry's ("" sends none), unless a `-H` names one.
    var userAgent: String?
    /// `-e`: the Referer to send, unless a `-H` names one.
    var referer: String?
    /// `-e '…;auto'`: with `-L`, each redirect's request names the page that redirected
    /// (``AutoReferer``); what precedes `;auto`, if anything, is the first request's Referer.
    var autoReferer = false
    /// `-b`: cookie files to read, or `name=value` strings to send (curl tells them apart by `=`).
    var cookies: [String] = []
    /// `-c`: where the cookie jar is written at the end (`-` for standard output).
    var cookieJar: String?
    /// `-j`: session cookies of `-b` files are dropped when read.
    var junkSessionCookies = false
    /// How many `-K` files are being read, one inside the other.
    var configDepth = 0
    var fail = false
    var silent = false
    var showError = false
    var verbose = false
    /// `--show-credentials`: `-v` prints Authorization and Proxy-Authorization in full.
    var showsCredentials = false
    var writeOut: String?
    var maxFilesize: Int64?
    /// `--limit-rate`: bytes per second each transfer receives and sends at most; nil: no cap.
    var limitRate: Int64?
    /// `-C`/`--continue-at`: continue every `-o` file instead of writing it anew.
    var continueAt: ContinueAt?
    var parallel = false
    var parallelMax = 50
    /// `--cacert`, `-k`, `--pinnedpubkey`, `--cert`, `--key` and the Ferry-only pinning flags.
    var tls = TLSOptions()
    var showHelp = false
    var showVersion = false

    /// The `-H` arguments as fields to add, replace or remove (a line that is none of them is
    /// ignored, as curl ignores it).
    var headerArguments: [HeaderArgument] { headers.compactMap(HeaderArgument.init) }

    /// Whether redirects get ``AutoReferer``'s Referer: `-e '…;auto'` with `-L`, unless a `-H`
    /// names Referer, which wins on every request as it does over `-e`.
    var namesRedirectingPage: Bool {
        autoReferer && followRedirects && !headerArguments.contains { $0.canonicalName == "referer" }
    }

    /// How `-u` credentials are used, as curl's flags choose.
    enum AuthScheme: Sendable, Equatable {
        /// Basic, sent with the first request (curl's default).
        case basic
        /// Digest, answered when the server asks.
        case digest
        /// Whichever the server offers, the strongest first, answered when it asks.
        case any
    }

    /// Where `-C` continues a file from, as curl reads its argument.
    enum ContinueAt: Sendable, Equatable {
        /// `-C -`: from the file's end (its size when the transfer starts).
        case end
        /// `-C N`: after the file's first N bytes (those after them are replaced).
        case offset(Int64)

        /// The offset for the library's continuing download: nil is "the file's size".
        var bytes: Int64? {
            if case .offset(let count) = self { return count }
            return nil
        }
    }

    /// URLs paired with their outputs, made as they are read (not stored: a command line may
    /// hold ten thousand URLs). Extra `-o` files are ignored (curl warns about them).
    struct Jobs: RandomAccessCollection, Sendable {
        let urls: [String]
        let outputs: [Output]

        var startIndex: Int { urls.startIndex }
        var endIndex: Int { urls.endIndex }

        subscript(index: Int) -> Job {
            guard index < outputs.count else { return Job(url: urls[index], output: nil) }
            let path = outputs[index].path(for: urls[index])
            let isRemoteName = outputs[index] == .remoteName
            // A URL that does not parse fails as such (exit 3), not for its name.
            let lacksName = isRemoteName && path == nil && RequestBuilder.url(from: urls[index]) != nil
            return Job(url: urls[index], output: path, lacksRemoteName: lacksName, isRemoteName: isRemoteName)
        }
    }

    /// The URLs paired with their outputs.
    var jobs: Jobs { Jobs(urls: urls, outputs: outputs) }

    /// Adds a URL. One repeated (a script fetching the same URL many times) shares the
    /// storage of the one before it: ten thousand copies cost an array slot each.
    mutating func addURL(_ url: String) {
        if let last = urls.last, last == url {
            urls.append(last)
        } else {
            urls.append(url)
        }
    }

    /// `user:password` from `-u` or `-U`, split as curl splits it: at the first colon; without
    /// one curl would prompt, ferry uses an empty password.
    static func userAndPassword(_ text: String) -> (user: String, password: String) {
        let colon = text.firstIndex(of: ":")
        return (String(text[..<(colon ?? text.endIndex)]), colon.map { String(text[text.index(after: $0)...]) } ?? "")
    }

    /// Refuses `-J` with `-i`, `-I` or `-C`, as curl does (exit 2).
    func validateRemoteHeaderName() throws(UsageError) {
        guard remoteHeaderName else { return }
        // curl's refusals: the head would go into the file the server names; a continued file
        // has its name already.
        if include || headOnly { throw UsageError("showing headers and --remote-header-name cannot be combined") }
        if continueAt != nil { throw UsageError("--continue-at and --remote-header-name cannot be combined") }
    }

    /// Refuses `-C` where it would corrupt what it continues.
    ///
    /// curl continues standard output too, and with `-i`/`-I` writes the response head into
    /// the middle of the resumed file. Ferry continues files only, through the library's
    /// continuing download, which never writes anything but the resource's own bytes after the
    /// offset: `-C` needs an `-o FILE` (or `-O`) for every URL (`-o -` is standard output) and
    /// excludes `-i` and `-I`. Checked before anything is sent.
    func validateContinuation() throws(UsageError) {
        guard continueAt != nil else { return }
        if include || headOnly {
            throw UsageError("option -C: cannot be used with \(include ? "-i, --include" : "-I, --head"): the head would "
                             + "be written into the resumed file", suggestsHelp: false)
        }
        if jobs.contains(where: { $0.filePath == nil }) {
            throw UsageError("option -C: every URL needs its own -o FILE: ferry continues files, not standard output",
                             suggestsHelp: false)
        }
    }

    /// Whether a failure line goes to standard error: curl's `-s` hides it unless `-S`.
    var showsErrors: Bool { !silent || showError }
}
