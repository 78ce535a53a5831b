import FoundationEssentials
import Glibc

/// The bytes of all `-d`/`--data-binary`/`--data-raw`/`--data-urlencode`/`--json` arguments,
/// joined as curl joins them.
///
/// curl appends each piece with `&`, except a `--json` piece, which is appended as is (so
/// `--json a --json b -d c` sends `ab&c`). `@file` is read here, once, before any request.
struct PostData: Equatable, Sendable {
    /// The joined body.
    var bytes: [UInt8]
    /// Whether a `--json` piece was given (sets Content-Type and Accept to application/json).
    var isJSON: Bool
    /// Warnings for files that could not be read: curl goes on with an empty piece.
    var warnings: [String]

    /// Reads a file's bytes (`-` is standard input); nil when it cannot be read.
    typealias FileReader = (String) -> [UInt8]?

    /// Joins `pieces`, reading `@file` arguments with `readFile`.
    init(pieces: [Options.DataPiece], readFile: FileReader = PostData.readFile) {
        bytes = []
        isJSON = false
        warnings = []
        for (index, piece) in pieces.enumerated() {
            if index > 0 && piece.kind != .json { bytes.append(UInt8(ascii: "&")) }
            if piece.kind == .json { isJSON = true }
            bytes += load(piece, readFile: readFile)
        }
    }

    private mutating func load(_ piece: Options.DataPiece, readFile: FileReader) -> [UInt8] {
        if piece.kind == .urlencode { return urlEncodedPiece(piece.value, readFile: readFile) }
        guard piece.kind != .raw, piece.value.hasPrefix("@") else { return Array(piece.value.utf8) }
        let path = String(piece.value.dropFirst())
        guard let content = readFile(path) else {
            warnings.append(Self.unreadableWarning(path))
            return []
        }
        // curl's -d @file drops carriage returns and newlines; the binary forms keep every byte.
        if piece.kind == .ascii {
            return content.filter { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        }
        return content
    }

    /// curl's `--data-urlencode` argument: `name=content` (the first `=`; no name before it
    /// sends the content alone), else `[name]@file` (the file's every byte; `-` is standard
    /// input), else the content alone. A file that cannot be read or is empty sends nothing,
    /// not even the name, as curl 7.88.
    private mutating func urlEncodedPiece(_ argument: String, readFile: FileReader) -> [UInt8] {
        let separator = argument.firstIndex(of: "=") ?? argument.firstIndex(of: "@")
        guard let separator else { return QueryEncoder.formEncoded(Array(argument.utf8)) }
        let name = argument[..<separator]
        let rest = String(argument[argument.index(after: separator)...])
        var content = Array(rest.utf8)
        if argument[separator] == "@" {
            guard let read = readFile(rest) else {
                warnings.append(Self.unreadableWarning(argument))
                return []
            }
            guard !read.isEmpty else { return [] }
            content = read
        }
        return name.isEmpty ? QueryEncoder.formEncoded(content) : Array(name.utf8) + [UInt8(ascii: "=")] + QueryEncoder.formEncoded(content)
    }

    /// curl's warning for a data file it cannot read (it names the argument as given).
    private static func unreadableWarning(_ name: String) -> String {
        "Warning: Couldn't read data from file \"\(name)\", this makes an empty POST."
    }

    /// Reads a whole file, or standard input for `-`.
    static func readFile(_ path: String) -> [UInt8]? {
        if path == "-" {
            return readStandardInput()
        }
        return FileManager.default.contents(atPath: path).map(Array.init)
    }

    /// Standard input to its end (nil on a read error).
    private static func readStandardInput() -> [UInt8]? {
        var content: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if count == 0 { return content }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            content.append(contentsOf: buffer[0..<count])
        }
    }
}
