#if canImport(Glibc)
import Glibc
#endif
import Ferry
import FoundationEssentials

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
            // curl: `-b -` reads the cookies from standard input.
            try? storage.loadNetscapeCookieFile(at: file == "-" ? "/dev/stdin" : file, junkSessionCookies: options.junkSessionCookies)
        }
        self.storage = storage
    }

    /// Uses the engine's storage (or none) for the run's session.
    func apply(to configuration: inout SessionConfiguration) {
        configuration.httpCookieStorage = storage
        configuration.httpCookieAcceptPolicy = .always
    }

    /// Writes the jar (`-c`), once every transfer ended, even without a cookie (curl 7.88
    /// writes its header lines then). A jar that cannot be written is a warning naming the
    /// cause (unless `silent`, as curl's `-s` silences it), not a failed run. A device or FIFO
    /// (`/dev/null`) is written to in place; a regular file, or a symbolic link someone may
    /// have planted, is replaced whole by the library (a new 0600 file renamed over it), never
    /// written through.
    func saveJar(console: Console, silent: Bool) {
        guard let jarPath, let storage else { return }
        if jarPath == "-" {
            _ = console.writeOut(storage.netscapeCookieFileText())
            return
        }
        var failure: String?
        // lstat: a link is never followed, whatever it points at.
        var info = stat()
        let mode = lstat(jarPath, &info) == 0 ? info.st_mode & S_IFMT : 0
        if mode == S_IFCHR || mode == S_IFBLK || mode == S_IFIFO {
            let fd = open(jarPath, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW)
            if fd < 0 || !Console.writeAll(fd, Array(storage.netscapeCookieFileText().utf8)) {
                failure = String(cString: strerror(errno))
            }
            if fd >= 0 { close(fd) }
        } else {
            do throws(CookieFileError) {
                try storage.writeNetscapeCookieFile(to: jarPath)
            } catch {
                failure = "\(error.systemError)"
            }
        }
        if let failure, !silent { console.writeErrorLines(["Warning: Failed to save cookies in \(jarPath): \(failure)"]) }
    }
}
