import Ferry
import FoundationEssentials

/// One command-line option: its spellings and what it does to ``Options``.
///
/// The table in ``all`` is the single list of flags `ferry` knows; ``ArgumentParser`` only
/// implements curl's spelling rules (clusters, attached values, unique prefixes, `--no-`).
struct OptionSpec: Sendable {
    enum Action: Sendable {
        /// A boolean flag; the argument is `false` for the `--no-` form.
        case flag(@Sendable (inout Options, Bool) -> Void)
        /// An option that takes a value (attached or the next argument).
        case value(@Sendable (inout Options, String) throws(UsageError) -> Void)
    }

    let long: String
    let short: Character?
    let action: Action

    var takesValue: Bool {
        if case .value = action { return true }
        return false
    }

    /// Every option `ferry` accepts, spelled as curl spells it.
    static let all: [OptionSpec] = [
        value("request", "X") { options, text throws(UsageError) in
            // RFC 9110 §9.1: a method is a token. curl sends anything; Ferry refuses here.
            guard HTTPRequest.Method(text) != nil else {
                throw UsageError("option -X: method \"\(text.prefix(40))\" is not a valid token", suggestsHelp: false)
            }
            options.method = text
        },
        value("header", "H") { options, text in
            // curl: `@file` (`@-`: standard input) holds headers, one per line; a file that
            // cannot be read adds none, with a warning, as curl's.
            guard text.hasPrefix("@") else { return options.headers.append(text) }
            let path = String(text.dropFirst())
            guard let contents = PostData.readFile(path) else { return options.warnings.append("Warning: Failed to open \(path)!") }
            options.headers += HeaderArgument.lines(of: contents)
        },
        value("user-agent", "A") { options, text in options.userAgent = text },
        value("referer", "e") { options, text in
            // curl's ';auto': with -L, each redirect names the page before it (AutoReferer);
            // what precedes it, possibly nothing, is the first request's Referer.
            options.autoReferer = text.hasSuffix(";auto")
            options.referer = options.autoReferer ? String(text.dropLast(5)) : text
        },
        value("data", "d") { options, text in options.data.append(.init(kind: .ascii, value: text)) },
        value("data-ascii", nil) { options, text in options.data.append(.init(kind: .ascii, value: text)) },
        value("data-binary", nil) { options, text in options.data.append(.init(kind: .binary, value: text)) },
        value("data-raw", nil) { options, text in options.data.append(.init(kind: .raw, value: text)) },
        value("data-urlencode", nil) { options, text in options.data.append(.init(kind: .urlencode, value: text)) },
        value("json", nil) { options, text in options.data.append(.init(kind: .json, value: text)) },
        value("form", "F") { options, text throws(UsageError) in options.form.append(try FormArgument(parsing: text)) },
        value("form-string", nil) { options, text throws(UsageError) in
            options.form.append(try FormArgument(parsing: text, literal: true))
        },
        flag("get", "G") { options, on in options.useGet = on },
        value("output", "o") { options, text in options.outputs.append(.path(text)) },
        flag("remote-name", "O") { options, on in if on { options.outputs.append(.remoteName) } },
        flag("remote-header-name", "J") { options, on in options.remoteHeaderName = on },
        value("url", nil) { options, text in options.addURL(text) },
        value("continue-at", "C") { options, text throws(UsageError) in options.continueAt = try continueAt(text) },
        value("range", "r") { options, text throws(UsageError) in options.range = try range(text, warnings: &options.warnings) },
        flag("include", "i") { options, on in options.include = on },
        value("dump-header", "D") { options, text in options.dumpHeader = text },
        flag("head", "I") { options, on in options.headOnly = on },
        value("max-time", "m") { options, text throws(UsageError) in
            options.maxTime = try seconds(text, option: "-m")
        },
        value("connect-timeout", nil) { options, text throws(UsageError) in
            options.connectTimeout = try seconds(text, option: "--connect-timeout")
        },
        flag("compressed", nil) { options, on in options.compressed = on },
        // HTTP/1.1 is all ferry speaks: accepted so that curl command lines run unchanged.
        flag("http1.1", nil) { _, _ in },
        flag("location", "L") { options, on in options.followRedirects = on },
        value("max-redirs", nil) { options, text throws(UsageError) in
            // curl: -1 is no limit.
            guard let count = Int(text), count >= -1 else { throw numberError("--max-redirs") }
            options.maxRedirects = count == -1 ? Int.max : count
        },
        // curl: --location-trusted implies -L.
        flag("location-trusted", nil) { options, on in
            options.locationTrusted = on
            if on { options.followRedirects = true }
        },
        value("user", "u") { options, text in options.user = text },
        flag("basic", nil) { options, on in if on { options.authScheme = .basic } },
        flag("digest", nil) { options, on in options.authScheme = on ? .digest : .basic },
        flag("anyauth", nil) { options, on in options.authScheme = on ? .any : .basic },
        // curl: -x "" uses no proxy at all, not even the environment's.
        value("proxy", "x") { options, text throws(UsageError) in
            guard !text.isEmpty else { return options.proxy = Options.ProxyArgument.none }
            // curl takes a proxy without a scheme as http://, and refuses one that is not a URL
            // ("Unsupported proxy syntax"): never dropped silently, or the request would go direct.
            guard let url = URL(string: text.contains("://") ? text : "http://" + text) else {
                throw UsageError("option -x: \"\(text.prefix(80))\" is not a proxy URL", suggestsHelp: false)
            }
            options.proxy = .url(url)
        },
        value("noproxy", nil) { options, text in options.noProxy = text },
        value("proxy-user", "U") { options, text in options.proxyUser = text },
        value("proto", nil) { options, text throws(UsageError) in
            options.protocols = try protocolList(text, option: "--proto")
        },
        value("proto-redir", nil) { options, text throws(UsageError) in
            options.redirectProtocols = try protocolList(text, option: "--proto-redir")
        },
        value("cookie", "b") { options, text in options.cookies.append(text) },
        value("cookie-jar", "c") { options, text in options.cookieJar = text },
        flag("junk-session-cookies", "j") { options, on in options.junkSessionCookies = on },
        flag("fail", "f") { options, on in options.fail = on },
        flag("silent", "s") { options, on in options.silent = on },
        flag("show-error", "S") { options, on in options.showError = on },
        flag("verbose", "v") { options, on in options.verbose = on },
        flag("show-credentials", nil) { options, on in options.showsCredentials = on },
        value("write-out", "w") { options, text in options.writeOut = text },
        value("max-filesize", nil) { options, text throws(UsageError) in
            // curl: 0 is no limit.
            let limit = try size(text, option: "--max-filesize")
            options.maxFilesize = limit > 0 ? limit : nil
        },
        value("limit-rate", nil) { options, text throws(UsageError) in options.limitRate = try rate(text) },
        flag("parallel", "Z") { options, on in options.parallel = on },
        value("parallel-max", nil) { options, text throws(UsageError) in
            guard let count = Int(text) else { throw numberError("--parallel-max") }
            // curl clamps to 300 and treats anything below 1 as its default of 50.
            options.parallelMax = count < 1 ? 50 : min(count, 300)
        },
        // TLS (curl's spelling, then Ferry's own AFSecurityPolicy flags).
        value("cacert", nil) { options, text in options.tls.caCertificateFile = text },
        flag("insecure", "k") { options, on in options.tls.insecure = on },
        flag("sessionid", nil) { options, on in options.tls.reusesSessions = on },
        value("pinnedpubkey", nil) { options, text in options.tls.pinnedPublicKey = text },
        value("cert", "E") { options, text in options.tls.clientCertificateFile = text },
        value("key", nil) { options, text in options.tls.clientKeyFile = text },
        value("pin-cert", nil) { options, text in options.tls.pinnedCertificateFiles.append(text) },
        value("pin-pubkey", nil) { options, text in options.tls.pinnedPublicKeyFiles.append(text) },
        flag("allow-invalid-certs", nil) { options, on in options.tls.allowInvalidCertificates = on },
        // Spelled with its "no-" so that the exact name wins; `--no-no-validate-domain` undoes it.
        flag("no-validate-domain", nil) { options, on in options.tls.validatesDomainName = !on },
        // Read by ArgumentParser itself, in place: the file's options go through this table.
        value("config", "K") { _, _ in },
        flag("help", "h") { options, on in options.showHelp = on },
        flag("version", "V") { options, on in options.showVersion = on },
    ]

    /// curl's `-r`: text starting with a number and holding no dash is that number and the
    /// dash a range needs (curl reads it as `strtoll` does, with its warning); other text is
    /// sent as given, with a warning when it holds more than digits, `-` and `,`.
    static func range(_ text: String, warnings: inout [String]) throws(UsageError) -> String {
        if let first = text.first, first.isASCII, first.isNumber, !text.contains("-") {
            guard let offset = Int64(text.prefix { $0.isASCII && $0.isNumber }) else { throw UsageError("unsupported range point") }
            warnings.append("Warning: A specified range MUST include at least one dash (-). Appending one for you!")
            return "\(offset)-"
        }
        if text.contains(where: { !($0.isASCII && $0.isNumber) && $0 != "-" && $0 != "," }) {
            warnings.append("Warning: Invalid character is found in given range. A specified range MUST have only digits in "
                + "'start'-'stop'. The server's response to this request is uncertain.")
        }
        return text
    }

    private static func flag(_ long: String, _ short: Character?, _ body: @escaping @Sendable (inout Options, Bool) -> Void) -> OptionSpec {
        OptionSpec(long: long, short: short, action: .flag(body))
    }

    private static func value(
        _ long: String, _ short: Character?,
        _ body: @escaping @Sendable (inout Options, String) throws(UsageError) -> Void
    ) -> OptionSpec {
        OptionSpec(long: long, short: short, action: .value(body))
    }

    /// A `--proto` list; one that leaves out https is refused: ferry's transport security
    /// policy can only insist on https, not forbid it.
    static func protocolList(_ text: String, option: String) throws(UsageError) -> ProtocolList {
        let list = ProtocolList(text)
        guard list.allowsHTTPS else {
            throw UsageError("option \(option): a list without https is not supported (ferry can only refuse plain http)",
                             suggestsHelp: false)
        }
        return list
    }

    // MARK: - Numbers, as curl reads them

    static func numberError(_ option: String) -> UsageError {
        UsageError("option \(option): expected a proper numerical parameter")
    }

    /// Seconds, fractions allowed (`5`, `0.25`, `.5`); curl refuses signs and exponents.
    static func seconds(_ text: String, option: String) throws(UsageError) -> Double {
        let allowed = text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard !text.isEmpty, allowed, text.filter({ $0 == "." }).count <= 1,
              let value = Double(text.hasPrefix(".") ? "0" + text : text), value.isFinite else {
            throw numberError(option)
        }
        return value
    }

    /// `-C`'s argument: `-` (from the file's end) or a byte offset, decimal digits only. curl
    /// also takes a sign, spaces and hex or octal (`0x10`, `007`); a byte count in the
    /// file is plain digits, so anything else is more likely a mistake and refused.
    static func continueAt(_ text: String) throws(UsageError) -> Options.ContinueAt {
        if text == "-" { return .end }
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw numberError("-C") }
        // curl's own words for the two ways a number can be wrong here.
        guard !text.hasPrefix("-") else { throw UsageError("option -C: expected a positive numerical parameter") }
        guard let offset = Int64(digits) else { throw UsageError("option -C: too large number") }
        return .offset(offset)
    }

    /// `--limit-rate`'s bytes per second (``size(_:option:)``); 0 is no cap (nil).
    static func rate(_ text: String) throws(UsageError) -> Int64? {
        let value = try size(text, option: "--limit-rate")
        return value > 0 ? value : nil
    }

    /// Bytes as curl reads `--max-filesize` and `--limit-rate`: blanks and a `+` may lead, then
    /// a whole number and at most one unit, `K`, `M` or `G` (binary) or `B`. Anything else is
    /// "badly used" (curl first warns why); a product past 2⁶³ is "too large number".
    static func size(_ text: String, option: String) throws(UsageError) -> Int64 {
        let badlyUsed = UsageError("option \(option): is badly used here")
        var rest = Substring(text).drop { $0 == " " || $0 == "\t" }
        if rest.first == "+" { rest = rest.dropFirst() }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let value = Int64(digits) else { throw badlyUsed }
        let multiplier: Int64
        switch rest.dropFirst(digits.count).uppercased() {
        case "", "B": multiplier = 1
        case "K": multiplier = 1 << 10
        case "M": multiplier = 1 << 20
        case "G": multiplier = 1 << 30
        default: throw badlyUsed
        }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { throw UsageError("option \(option): too large number") }
        return product
    }
}
