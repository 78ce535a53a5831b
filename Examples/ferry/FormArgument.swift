/// One `-F`/`--form` or `--form-string` argument, read with curl 7.88's rules (its
/// `tool_formparse.c`); nothing is read from the file system here.
///
/// - `name=value` is a text field, `name=@path` a file part (sent from the file, streamed),
///   `name=<path` a text field whose value is the file's content; `-` is standard input.
/// - After the value, `;type=major/minor` and `;filename=x` in any order (a file part's name
///   is the path's last component unless `filename=` gives another). Everything up to the
///   next `;filename=` belongs to the type, so `;type=text/plain; charset=utf-8` works as in curl.
/// - A value or file name in double quotes may hold `;` and `,`; inside, `\"` is a quote and
///   `\\` a backslash. A quote that is never closed is an ordinary character.
/// - Blanks before a value and after an unquoted one are dropped; an unknown `;x=y` is
///   skipped with a warning, as in curl.
/// - `--form-string name=value` takes everything after the first `=` literally.
///
/// curl's rarer forms are refused with a usage error rather than sent differently: several
/// files in one field (`name=@a,b`, a `multipart/mixed` subpart), `(`…`)` subparts,
/// `;headers=` and `;encoder=`.
struct FormArgument: Sendable, Equatable {
    /// Where a part's value comes from.
    enum Content: Sendable, Equatable {
        /// The text itself.
        case text(String)
        /// `@path`: a file part.
        case file(path: String)
        /// `<path`: a text field holding the file's bytes.
        case fileText(path: String)
    }

    /// The field name: everything before the first `=` (may be empty, as in curl).
    var name: String
    var content: Content
    /// `;type=`, as given.
    var mimeType: String?
    /// `;filename=`, as given.
    var fileName: String?
    /// curl's warnings about parts of the argument it skipped (printed unless `-s`).
    var warnings: [String] = []

    init(name: String, content: Content, mimeType: String? = nil, fileName: String? = nil, warnings: [String] = []) {
        self.name = name
        self.content = content
        self.mimeType = mimeType
        self.fileName = fileName
        self.warnings = warnings
    }

    /// Reads one argument.
    /// - Parameters:
    ///   - text: What followed `-F` or `--form-string`.
    ///   - literal: `--form-string`: no `@`, `<` or `;` is special.
    /// - Throws: ``UsageError`` when there is no `=`, a type is not `major/minor`, or a form
    ///   ferry does not support is used.
    init(parsing text: String, literal: Bool = false) throws(UsageError) {
        let option = literal ? "--form-string" : "-F"
        guard let equals = text.firstIndex(of: "=") else {
            throw UsageError("option \(option): \"\(text.prefix(60))\" is not name=content (expected name=value, name=@file or name=<file)")
        }
        name = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        guard !literal else {
            content = .text(value)
            return
        }
        var scanner = FormArgumentScanner(value)
        switch value.utf8.first ?? 0 {
        case UInt8(ascii: "("):
            throw UsageError("option -F: multipart subparts (name=( ... )) are not supported by ferry")
        case UInt8(ascii: ")") where name.isEmpty:
            throw UsageError("option -F: multipart subparts (name=( ... )) are not supported by ferry")
        case UInt8(ascii: "@"):
            scanner.position += 1
            let part = try scanner.part(endingAt: UInt8(ascii: ","))
            if part.separator == UInt8(ascii: ",") {
                throw UsageError("option -F: several files in one field (name=@a,b) are not supported by ferry: "
                    + "give each file its own -F, or quote a path that holds a comma (name=@\"a,b\")")
            }
            content = .file(path: part.value)
            mimeType = part.type
            fileName = part.fileName
        case UInt8(ascii: "<"):
            scanner.position += 1
            let part = try scanner.part(endingAt: nil)
            content = .fileText(path: part.value)
            mimeType = part.type
            // curl ignores a file name on a field read from a file, with this warning.
            if let name = part.fileName { scanner.warnings.append("Warning: Field file name not allowed here: \(name)") }
        default:
            let part = try scanner.part(endingAt: nil)
            content = .text(part.value)
            mimeType = part.type
            fileName = part.fileName
        }
        warnings = scanner.warnings
    }
}

/// curl's `get_param_part` and `get_param_word` over the bytes of a `-F` value.
struct FormArgumentScanner {
    /// What one value and its `;` parameters hold.
    struct Part {
        var value: String
        var type: String?
        var fileName: String?
        /// The byte the scan stopped at: nil at the end, or the `endingAt` byte (`,` for files).
        var separator: UInt8?
    }

    private let bytes: [UInt8]
    var position = 0
    var warnings: [String] = []

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// A value, then its `;type=` and `;filename=` parameters, up to `end` or the end.
    /// - Throws: ``UsageError`` for a type that is not `major/minor`, `;headers=` or `;encoder=`.
    mutating func part(endingAt end: UInt8?) throws(UsageError) -> Part {
        skipSpaces()
        var part = Part(value: word(endingAt: end))
        // The type runs from typeStart to typeEnd and stays open (absorbing unknown
        // parameters) until a known parameter follows, as curl's `endct`.
        var typeStart: Int?
        var typeEnd = 0
        var typeOpen = false
        while current == UInt8(ascii: ";") {
            position += 1
            skipSpaces()
            if !typeOpen && hasPrefix("type=") {
                position += 5
                skipSpaces()
                typeStart = position
                position = try typeSpecifierEnd()
                typeEnd = position
                typeOpen = true
                scanTypeContinuation(end, &typeEnd)
            } else if hasPrefix("filename=") {
                typeOpen = false
                position += 9
                skipSpaces()
                part.fileName = word(endingAt: end)
            } else if hasPrefix("headers=") || hasPrefix("encoder=") {
                throw UsageError("option -F: ;headers= and ;encoder= are not supported by ferry")
            } else if typeOpen {
                typeEnd = position
                scanTypeContinuation(end, &typeEnd)
            } else {
                let unknown = word(endingAt: end)
                if !unknown.isEmpty { warnings.append("Warning: skip unknown form field: \(unknown)") }
            }
        }
        if let typeStart { part.type = String(decoding: bytes[typeStart..<typeEnd], as: UTF8.self) }
        part.separator = current
        return part
    }

    /// curl checks a type with `sscanf("%127[^/ ]/%127[^;, \n]")`: 1 to 127 bytes, a slash,
    /// at least one more byte. Returns where that match ends.
    private func typeSpecifierEnd() throws(UsageError) -> Int {
        var index = position
        while index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: " ") { index += 1 }
        let majorLength = index - position
        let minorStart = index + 1
        var minorEnd = minorStart
        while minorEnd < bytes.count, !";, \n".utf8.contains(bytes[minorEnd]) { minorEnd += 1 }
        guard (1...127).contains(majorLength), index < bytes.count, bytes[index] == UInt8(ascii: "/"), minorEnd > minorStart else {
            let given = String(decoding: bytes[position...].prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self)
            throw UsageError("option -F: illegally formatted content-type field \"\(given.prefix(60))\" (expected type=major/minor)")
        }
        return minorEnd
    }

    /// The rest of a type up to the next `;` (or `end`), its trailing blanks left out.
    private mutating func scanTypeContinuation(_ end: UInt8?, _ typeEnd: inout Int) {
        while let byte = current, byte != UInt8(ascii: ";"), byte != end {
            if !Self.isSpace(byte) { typeEnd = position + 1 }
            position += 1
        }
    }

    /// A word up to `;` or `end`: quoted (`\"` and `\\` escapes, the rest of the segment
    /// dropped with a warning when it is not blank) or not (trailing blanks dropped).
    private mutating func word(endingAt end: UInt8?) -> String {
        let start = position
        if current == UInt8(ascii: "\"") {
            var index = position + 1
            var unescaped: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\\"), index + 1 < bytes.count,
                   bytes[index + 1] == UInt8(ascii: "\\") || bytes[index + 1] == UInt8(ascii: "\"") {
                    unescaped.append(bytes[index + 1])
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") {
                    position = index + 1
                    var trailing = false
                    while let byte = current, byte != UInt8(ascii: ";"), byte != end {
                        if !Self.isSpace(byte) { trailing = true }
                        position += 1
                    }
                    if trailing { warnings.append("Warning: Trailing data after quoted form parameter") }
                    return String(decoding: unescaped, as: UTF8.self)
                }
                unescaped.append(byte)
                index += 1
            }
            // No closing quote: curl reads the word as if it were not quoted.
        }
        while let byte = current, byte != UInt8(ascii: ";"), byte != end { position += 1 }
        var wordEnd = position
        while wordEnd > start, Self.isSpace(bytes[wordEnd - 1]) { wordEnd -= 1 }
        return String(decoding: bytes[start..<wordEnd], as: UTF8.self)
    }

    private mutating func skipSpaces() {
        while let byte = current, Self.isSpace(byte) { position += 1 }
    }

    /// curl's `checkprefix`: ASCII, case-insensitive.
    private func hasPrefix(_ prefix: String) -> Bool {
        let wanted = Array(prefix.utf8)
        guard bytes.count - position >= wanted.count else { return false }
        return zip(bytes[position...], wanted).allSatisfy { byte, letter in
            byte == letter || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte + 32 == letter)
        }
    }

    /// C's `isspace` in the C locale.
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (byte >= 0x09 && byte <= 0x0D)
    }
}
