#if canImport(Glibc)
import Glibc
#endif
import FerryIO
import FoundationEssentials

/// A cookie file that could not be read or written: the file and the system call that failed.
public struct CookieFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The cookie file's path, as given.
    public let path: String
    /// The failed call and its `errno` (`open`, `read`, `write`, `fsync`, `close`, `rename`;
    /// `read` with `EFBIG` for a file over ``CookieStorage/maximumCookieFileBytes``).
    public let systemError: SystemError

    /// An error for `path`.
    public init(path: String, systemError: SystemError) {
        self.path = path
        self.systemError = systemError
    }

    /// `cookie file PATH: open: No such file or directory (errno 2)`.
    public var description: String {
        "cookie file \(path): \(systemError)"
    }
}

/// curl's cookie files (`-b FILE`, `-c FILE`): the Netscape format, one cookie a line of seven
/// tab-separated fields — domain, include-subdomains (`TRUE`/`FALSE`), path, secure
/// (`TRUE`/`FALSE`), expiry in seconds since 1970 (`0` for a session cookie), name, value.
/// `#HttpOnly_` before the domain marks an HttpOnly cookie; other lines starting with `#`, and
/// blank lines, are comments. As in curl, the include-subdomains field alone makes a domain
/// cookie: a leading dot on the domain is written for one and ignored when read.
extension CookieStorage {
    /// The largest cookie file read (a full jar of maximal cookies is about 16 MiB).
    public static let maximumCookieFileBytes = 32 << 20
    /// Longer lines are skipped (a maximal cookie's line is under 6 KiB).
    static let maximumCookieFileLineBytes = 8192

    /// Adds the cookies of a cookie file, as curl's `-b FILE` does.
    ///
    /// Malformed lines are skipped, as are expired cookies, domain cookies on a public suffix,
    /// and cookies breaking the `__Secure-`/`__Host-` rules; a file with no cookie line at all
    /// adds nothing. A line `Set-Cookie: …` (a saved response header, which curl also reads) is
    /// taken as a Set-Cookie field from a secure request to the host its Domain attribute
    /// names; one without a Domain attribute is skipped. Cookies are added as
    /// ``setCookie(_:)`` adds them, whatever the ``cookieAcceptPolicy``.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - junkSessionCookies: Skip session cookies (curl's `-j`): the file's session ended.
    /// - Throws: ``CookieFileError`` when the file cannot be opened or read, or is larger than
    ///   ``maximumCookieFileBytes``.
    public func loadNetscapeCookieFile(at path: String, junkSessionCookies: Bool = false) throws(CookieFileError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CookieFileError(path: path, systemError: SystemError(errno: errno, syscall: "open")) }
        defer { close(fd) }

        let now = currentDate
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var line: [UInt8] = []
        var lineTooLong = false
        var total = 0
        var batch: [Cookie] = []
        func finishLine() {
            if !lineTooLong, let cookie = Self.cookie(fromLine: line[...], now: now, junkSessionCookies: junkSessionCookies,
                                                      publicSuffixes: publicSuffixes) {
                batch.append(cookie)
                // Stored in batches, so a long file never holds more than a batch in memory.
                if batch.count >= 256 {
                    insert(batch, fromSecureRequest: true)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            line.removeAll(keepingCapacity: true)
            lineTooLong = false
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CookieFileError(path: path, systemError: SystemError(errno: errno, syscall: "read"))
            }
            if count == 0 { break }
            total += count
            guard total <= Self.maximumCookieFileBytes else {
                throw CookieFileError(path: path, systemError: SystemError(errno: EFBIG, syscall: "read"))
            }
            var rest = chunk[..<count]
            while !rest.isEmpty {
                let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
                let piece = rest[..<(newline ?? rest.endIndex)]
                if !lineTooLong {
                    if line.count + piece.count > Self.maximumCookieFileLineBytes {
                        lineTooLong = true
                        line.removeAll(keepingCapacity: true)
                    } else {
                        line.append(contentsOf: piece)
                    }
                }
                guard let newline else { break }
                finishLine()
                rest = rest[(newline + 1)...]
            }
        }
        finishLine()
        insert(batch, fromSecureRequest: true)
    }

    /// Writes every unexpired cookie to a cookie file, as curl's `-c FILE` does: curl's header
    /// lines, then one line per cookie in order of arrival (session cookies with expiry `0`).
    ///
    /// The file holds secrets, so it is written whole to a new file of mode 0600 beside it
    /// (created exclusively) and renamed over `path`: readers see the old file or the new one,
    /// never a part. A cookie whose name or path has a tab cannot be written in this format and
    /// is left out. (`-` for standard output is the command line's business.)
    ///
    /// - Parameter path: The file; replaced if it exists.
    /// - Throws: ``CookieFileError`` naming the call that failed; the temporary file is removed.
    public func writeNetscapeCookieFile(to path: String) throws(CookieFileError) {
        do throws(SystemError) {
            try PrivateFile.replace(path, with: Array(netscapeCookieFileText().utf8))
        } catch {
            throw CookieFileError(path: path, systemError: error)
        }
    }

    /// The text ``writeNetscapeCookieFile(to:)`` writes: for standard output (curl's `-c -`).
    public func netscapeCookieFileText() -> String {
        var text = "# Netscape HTTP Cookie File\n# https://curl.se/docs/http-cookies.html\n"
            + "# This file was generated by Ferry! Edit at your own risk.\n\n"
        for cookie in cookies {
            if let line = Self.netscapeLine(for: cookie) { text += line + "\n" }
        }
        return text
    }

    // MARK: - Lines

    /// A cookie line in Netscape format; nil when the cookie cannot be written in it.
    static func netscapeLine(for cookie: Cookie) -> String? {
        let fieldBreaks: (UInt8) -> Bool = { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard !cookie.name.utf8.contains(where: fieldBreaks), !cookie.path.utf8.contains(where: fieldBreaks),
              !cookie.value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return nil }
        // 0 means a session cookie, so a (long expired) expiry at or before 1970 is written as 1.
        let expires = cookie.expiresDate.map { Int64(min(max(1, $0.timeIntervalSince1970.rounded(.down)), 253_402_300_799)) } ?? 0
        let domain = (cookie.isHTTPOnly ? "#HttpOnly_" : "") + (cookie.isHostOnly ? "" : ".") + cookie.domain
        return [domain, cookie.isHostOnly ? "FALSE" : "TRUE", cookie.path, cookie.isSecure ? "TRUE" : "FALSE",
                String(expires), cookie.name, cookie.value].joined(separator: "\t")
    }

    /// The cookie a line of a cookie file holds; nil for comments and lines that hold none.
    static func cookie(fromLine line: ArraySlice<UInt8>, now: Date, junkSessionCookies: Bool,
                       publicSuffixes: PublicSuffixList) -> Cookie? {
        var line = line
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        var isHTTPOnly = false
        if line.starts(with: "#HttpOnly_".utf8) {
            isHTTPOnly = true
            line = line.dropFirst(10)
        } else if line.first == UInt8(ascii: "#") {
            return nil
        }
        if startsWithSetCookie(line) {
            return cookie(fromSetCookieLine: line.dropFirst(11), now: now, junkSessionCookies: junkSessionCookies,
                          publicSuffixes: publicSuffixes)
        }
        let fields = line.split(separator: 0x09, maxSplits: 6, omittingEmptySubsequences: false)
        // Six fields: a cookie with an empty value, whose trailing tab was lost (curl reads it so).
        guard fields.count >= 6 else { return nil }
        // As curl reads it: the include-subdomains field decides, a leading dot is dropped.
        var domainField = fields[0]
        if domainField.first == UInt8(ascii: ".") { domainField = domainField.dropFirst() }
        let domain = CookieRequest.canonicalHost(String(decoding: domainField, as: UTF8.self))
        guard Cookie.isValidDomain(domain), let includeSubdomains = flag(fields[1]),
              let isSecure = flag(fields[3]), let expirySeconds = seconds(fields[4]) else { return nil }
        let path = String(decoding: fields[2], as: UTF8.self)
        let name = String(decoding: trimmed(fields[5]), as: UTF8.self)
        let value = fields.count == 7 ? String(decoding: trimmed(fields[6]), as: UTF8.self) : ""
        guard Cookie.isValidPath(path), isValidStoredToken(name, isName: true), isValidStoredToken(value, isName: false),
              !(name.isEmpty && value.isEmpty),
              name.utf8.count + value.utf8.count <= Cookie.maximumNameAndValueBytes else { return nil }
        var expiry: Date?
        if expirySeconds != 0 {
            expiry = Date(timeIntervalSince1970: TimeInterval(expirySeconds))
        } else if junkSessionCookies {
            return nil
        }
        let cookie = Cookie(name: name, value: value, domain: domain, path: path,
                            isHostOnly: CookieRequest.isIPAddress(domain) || !includeSubdomains,
                            isSecure: isSecure, isHTTPOnly: isHTTPOnly, sameSite: nil, expiresDate: expiry,
                            creationDate: now)
        guard !cookie.isExpired(at: now), cookie.meetsPrefixRequirements(pathAttributeGiven: true) else { return nil }
        return cookie
    }

    /// `Set-Cookie: …` from a saved response head: a field from a secure request to the host
    /// its Domain attribute names.
    private static func cookie(fromSetCookieLine line: ArraySlice<UInt8>, now: Date, junkSessionCookies: Bool,
                               publicSuffixes: PublicSuffixList) -> Cookie? {
        guard case .success(let fields) = SetCookieParser.lex(String(decoding: line, as: UTF8.self), now: now),
              let domain = fields.domain, !domain.isEmpty else { return nil }
        let request = CookieRequest(host: CookieRequest.canonicalHost(domain), path: "/", isSecure: true)
        guard case .success(let cookie) = SetCookieParser.makeCookie(fields, request: request, now: now,
                                                                     publicSuffixes: publicSuffixes),
              !cookie.isExpired(at: now), !(junkSessionCookies && cookie.isSessionOnly) else { return nil }
        return cookie
    }

    private static func startsWithSetCookie(_ line: ArraySlice<UInt8>) -> Bool {
        let prefix = "set-cookie:".utf8
        guard line.count >= prefix.count else { return false }
        return zip(line, prefix).allSatisfy { byte, expected in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == expected
        }
    }

    /// `TRUE` or `FALSE`, in any case.
    private static func flag(_ field: ArraySlice<UInt8>) -> Bool? {
        switch String(decoding: field, as: UTF8.self).uppercased() {
        case "TRUE": return true
        case "FALSE": return false
        default: return nil
        }
    }

    /// The expiry field: decimal seconds, perhaps negative (long expired), clamped to the year
    /// 9999.
    private static func seconds(_ field: ArraySlice<UInt8>) -> Int64? {
        let negative = field.first == UInt8(ascii: "-")
        let digits = negative ? field.dropFirst() : field
        guard !digits.isEmpty, digits.count <= 18,
              digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let value = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        return negative ? -value : min(value, 253_402_300_799)
    }

    /// What the Set-Cookie parser could have stored: no control character but an inner HTAB,
    /// no `;`, and in a name no `=`.
    private static func isValidStoredToken(_ token: String, isName: Bool) -> Bool {
        !token.utf8.contains { byte in
            (byte < 0x20 && byte != 0x09) || byte == 0x7F || byte == UInt8(ascii: ";") || (isName && byte == UInt8(ascii: "="))
        }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
              let last = bytes.lastIndex(where: { !isSpace($0) }) else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }
}
