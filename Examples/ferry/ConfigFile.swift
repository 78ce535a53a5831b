#if canImport(Glibc)
import Glibc
#endif

/// curl's config file (`-K FILE`, `--config FILE`; `-` for standard input): one option per
/// line, as curl reads it.
///
/// - `#` starts a comment line; blank lines are skipped;
/// - the option is its long name with or without `--` (`url`, `--silent`) or a short one
///   with its dash (`-o`); its parameter follows after whitespace, `=` or `:`;
/// - a parameter in double quotes may hold spaces and the escapes `\\`, `\"`, `\t`, `\n`,
///   `\r` and `\v`; an unquoted one ends at the first whitespace.
///
/// The file is read in 64 KiB slices, a line at a time, so a file of twenty thousand URLs
/// costs what its options cost, not its size.
enum ConfigFile {
    /// One line's option and parameter.
    struct Entry: Equatable, Sendable {
        /// `--name` or `-x`, as the command line spells it.
        var option: String
        var parameter: String?
    }

    /// The longest line read (curl's limit is 10 KiB per line in 7.88; a URL may be longer).
    static let maximumLineBytes = 1 << 20

    /// The entry of one line; nil for a comment or a blank line.
    static func entry(_ line: ArraySlice<UInt8>) throws(UsageError) -> Entry? {
        var bytes = line.drop { isSpace($0) }
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        guard let first = bytes.first, first != UInt8(ascii: "#") else { return nil }
        let nameEnd = bytes.firstIndex { isSpace($0) || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ":") } ?? bytes.endIndex
        let name = String(decoding: bytes[..<nameEnd], as: UTF8.self)
        let option = name.hasPrefix("-") ? name : "--" + name
        var rest = bytes[nameEnd...].drop { isSpace($0) }
        if let separator = rest.first, separator == UInt8(ascii: "=") || separator == UInt8(ascii: ":") {
            rest = rest.dropFirst().drop { isSpace($0) }
        }
        guard let opening = rest.first else { return Entry(option: option, parameter: nil) }
        guard opening == UInt8(ascii: "\"") else {
            let end = rest.firstIndex(where: isSpace) ?? rest.endIndex
            return Entry(option: option, parameter: String(decoding: rest[..<end], as: UTF8.self))
        }
        var value: [UInt8] = []
        var escaped = false
        for byte in rest.dropFirst() {
            if escaped {
                switch byte {
                case UInt8(ascii: "t"): value.append(0x09)
                case UInt8(ascii: "n"): value.append(0x0A)
                case UInt8(ascii: "r"): value.append(0x0D)
                case UInt8(ascii: "v"): value.append(0x0B)
                default: value.append(byte)
                }
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                return Entry(option: option, parameter: String(decoding: value, as: UTF8.self))
            } else {
                value.append(byte)
            }
        }
        throw UsageError("config file: unterminated quote in the parameter of \(option)", suggestsHelp: false)
    }

    /// A config file that cannot be read: curl's exit 26, with errno's words.
    private static func unreadable(_ path: String) -> UsageError {
        UsageError("cannot read config from '\(path)': \(String(cString: strerror(errno)))", suggestsHelp: false, exitCode: .readError)
    }

    /// Calls `body` with each entry of the file at `path` (`-` for standard input), in order.
    /// - Throws: ``UsageError`` when the file cannot be read, a line is longer than
    ///   ``maximumLineBytes`` or malformed, or what `body` throws.
    static func forEachEntry(in path: String, _ body: (Entry) throws(UsageError) -> Void) throws(UsageError) {
        let descriptor = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw unreadable(path)
        }
        defer { if descriptor != 0 { close(descriptor) } }
        var pending: [UInt8] = []
        var slice = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = slice.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(path)
            }
            if count == 0 { break }
            pending.append(contentsOf: slice[0..<count])
            var start = 0
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                if let entry = try entry(pending[start..<newline]) { try body(entry) }
                start = newline + 1
            }
            pending.removeFirst(start)
            if pending.count > maximumLineBytes {
                throw UsageError("config file '\(path)': a line is longer than \(maximumLineBytes) bytes", suggestsHelp: false)
            }
        }
        if let entry = try entry(pending[...]) { try body(entry) }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }
}
