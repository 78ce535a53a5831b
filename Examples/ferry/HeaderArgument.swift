/// One `-H` argument, read with curl's rules.
///
/// - `Name: value` adds a field (repeatable; the first one also replaces a default of that name);
/// - `Name:` with nothing after the colon removes a field ferry would otherwise send;
/// - `Name;` sends the field with an empty value;
/// - anything else (no colon, no trailing semicolon) is ignored, as curl ignores it.
struct HeaderArgument: Equatable, Sendable {
    enum Action: Equatable, Sendable {
        case add(String)
        case remove
    }

    var name: String
    var action: Action

    init(name: String, action: Action) {
        self.name = name
        self.action = action
    }

    /// Reads `text`; nil when curl would ignore it.
    init?(_ text: String) {
        if let colon = text.firstIndex(of: ":") {
            name = String(text[..<colon])
            // curl skips the blanks after the colon; a value that is only blanks means "remove".
            let value = text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            action = value.isEmpty ? .remove : .add(String(value))
        } else if let semicolon = text.firstIndex(of: ";"),
                  text[text.index(after: semicolon)...].allSatisfy({ $0 == " " || $0 == "\t" }) {
            name = String(text[..<semicolon])
            action = .add("")
        } else {
            return nil
        }
    }

    /// The lines of a `-H @file`, each an argument of its own: split at CR or LF, as curl
    /// reads them.
    static func lines(of contents: [UInt8]) -> [String] {
        contents.split(omittingEmptySubsequences: true) { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// The field name, lower-cased, for matching defaults (field names are case-insensitive).
    var canonicalName: String { name.lowercased() }
}
