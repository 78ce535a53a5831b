import FoundationEssentials
import Glibc

/// The bytes of all `-d`/`--data-binary`/`--data-raw`/`--json` arguments, joined as curl joins them.
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
        guard piece.kind != .raw, piece.value.hasPrefix("@") else { return Array(piece.value.utf8) }
        let path = String(piece.value.dropFirst())
        guard let content = readFile(path) else {
            warnings.append("Warning: Couldn't read data from file \"\(path)\", this makes an empty POST.")
            return []
        }
        // curl's -d @file drops carriage returns and newlines; the binary forms keep every byte.
        if piece.kind == .ascii {
            return content.filter { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        }
        return content
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
