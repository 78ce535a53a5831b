import Ferry

/// curl's cookie engine for one run: `-b` files read into a ``CookieStorage``, `-b name=value`
/// strings sent as they are, and `-c` written at the end.
///
/// As curl, there is no cookie engine unless `-b FILE` or `-c` asks for one: without it,
/// `Set-Cookie` is ignored. A `-b` argument holding `=` is a cookie string, anything else a
/// file; a file that cannot be read is ignored, as curl ignores it. A cookie string goes to the
/// URLs of the command line only: a redirect to another origin drops it (CLI.md).
struct CookieSetup: Sendable {
    /// The engine's storage, when `-b FILE` or `-c` started one.
    let storage: CookieStorage?
    /// `-c`'s argument.
    let jarPath: String?

    /// The `-b` cookie strings, joined as one `Cookie` value (``RequestBuilder`` sends it).
    static func cookieString(_ options: Options) -> String? {
        let strings = options.cookies.filter(isCookieString)
        return strings.isEmpty ? nil : strings.joined(separator: "; ")
    }

    /// curl's rule: a `-b` argument with `=` is cookies, anything else a file name.
    private static func isCookieString(_ argument: String) -> Bool { argument.contains("=") }

    /// Reads the `-b` files (the one file-system access parsing left for later).
    init(_ options: Options) {
        let files = options.cookies.filter { !Self.isCookieString($0) }
        jarPath = options.cookieJar
        guard !files.isEmpty || jarPath != nil else {
            storage = nil
            return
        }
        let storage = CookieStorage()
        for file in files {
            try? storage.loadNetscapeCookieFile(at: file, junkSessionCookies: options.junkSessionCookies)
        }
        self.storage = storage
    }

    /// Uses the engine's storage (or none) for the run's session.
    func apply(to configuration: inout SessionConfiguration) {
        configuration.httpCookieStorage = storage
        configuration.httpCookieAcceptPolicy = .always
    }

    /// Writes the jar (`-c`), once every transfer ended. curl writes nothing when it knows no
    /// cookie, and a jar it cannot write is a warning, not a failed run.
    func saveJar(console: Console) {
        guard let jarPath, let storage, !storage.cookies.isEmpty else { return }
        if jarPath == "-" {
            _ = console.writeOut(storage.netscapeCookieFileText())
            return
        }
        do throws(CookieFileError) {
            try storage.writeNetscapeCookieFile(to: jarPath)
        } catch {
            console.writeErrorLines(["Warning: Failed to save cookies in \(jarPath): \(error)"])
        }
    }
}
