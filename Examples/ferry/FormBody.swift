import Ferry
import FoundationEssentials

/// The `multipart/form-data` body of all `-F`/`--form-string` arguments, built with Ferry's
/// ``MultipartFormData``, once per run, before any request.
///
/// A file part (`@path`) is only checked here (it exists, is a regular file, can be read) and
/// streamed when the request is sent; the same form gives a new stream when a redirect or an
/// authentication answer sends the body again. `<path` (a field's value) and `@-` (standard
/// input) are read whole, as curl reads them whole too when standard input is not a file.
///
/// Where curl and Ferry differ (Ferry's library rules, not CLI special cases): types come from
/// Ferry's table (``MultipartFormData/mimeType(forPathExtension:)``), which knows more
/// extensions than curl's ten (curl sends `application/octet-stream` for `.json`, Ferry
/// `application/json`); a field given a file name with an unknown extension gets
/// `application/octet-stream` where curl sends no type; a directory is refused (curl sends an
/// empty chunked part); a file part with an empty name is sent with `name=""`.
enum FormBody {
    /// Builds the form.
    /// - Parameters:
    ///   - arguments: The parsed arguments, in command-line order.
    ///   - readFile: Reads `<path` and `@-` (``PostData/readFile(_:)``; tests pass their own).
    /// - Throws: ``NetworkError``: `cannotOpenFile` (curl's exit 26) for a file that is
    ///   missing, unreadable, a directory or not a regular file; `invalidRequest` (exit 2) for a
    ///   type with a control character, or a typed field whose name Ferry cannot write.
    static func make(_ arguments: [FormArgument], readFile: PostData.FileReader = PostData.readFile) throws(NetworkError)
        -> MultipartFormData {
        var form = MultipartFormData()
        for argument in arguments {
            try append(argument, to: &form, readFile: readFile)
        }
        return form
    }

    private static func append(_ argument: FormArgument, to form: inout MultipartFormData,
                               readFile: PostData.FileReader) throws(NetworkError) {
        switch argument.content {
        case .text(let value):
            try appendField(Array(value.utf8), argument, to: &form)
        case .fileText(let path):
            try appendField(try read(path, readFile: readFile), argument, to: &form)
        case .file(let path) where path == "-":
            // curl names a part from standard input "-".
            let fileName = argument.fileName ?? "-"
            try form.appendPart(fileData: try read(path, readFile: readFile), name: argument.name, fileName: fileName,
                                mimeType: argument.mimeType ?? MultipartFormData.mimeType(forPathExtension: pathExtension(fileName)))
        case .file(let path):
            let url = URL(fileURLWithPath: path)
            guard argument.fileName != nil || argument.mimeType != nil else {
                return try form.appendPart(fileURL: url, name: argument.name)
            }
            let fileName = argument.fileName ?? url.lastPathComponent
            try form.appendPart(fileURL: url, name: argument.name, fileName: fileName,
                                mimeType: argument.mimeType ?? fileType(fileName: fileName, path: path))
        }
    }

    /// A text field (`name=value`, `name=<path`): with a file name it is sent as a file part
    /// would be, with a type it gets a `Content-Type`, else it is a plain field.
    private static func appendField(_ value: [UInt8], _ argument: FormArgument, to form: inout MultipartFormData) throws(NetworkError) {
        if let fileName = argument.fileName {
            return try form.appendPart(fileData: value, name: argument.name, fileName: fileName,
                                       mimeType: argument.mimeType ?? MultipartFormData.mimeType(forPathExtension: pathExtension(fileName)))
        }
        guard argument.mimeType != nil || argument.name.isEmpty else {
            return form.appendPart(formData: value, name: argument.name)
        }
        // MultipartFormData has no typed field without a file name: the part's head is given
        // whole. Its name is written as is, so a name the library would have to escape (a
        // quote or a control character) is refused rather than sent broken.
        if argument.name.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == 0x7F || ($0 < 0x20 && $0 != UInt8(ascii: "\t")) }) {
            throw NetworkError(.invalidRequest, reason: "the field \"\(argument.name.prefix(60))\" cannot be given a type: its name holds "
                + "a double quote or a control character (leave out ;type= or rename the field)")
        }
        // curl writes a field with an empty name as "form-data" alone.
        let disposition = argument.name.isEmpty ? "form-data" : "form-data; name=\"\(argument.name)\""
        var headers = [(name: "Content-Disposition", value: disposition)]
        if let type = argument.mimeType { headers.append((name: "Content-Type", value: type)) }
        try form.appendPart(headers: headers, body: value)
    }

    /// curl's rule for a file part with no `;type=`: the type of the name it is sent under,
    /// else of the path it is read from, else `application/octet-stream`.
    private static func fileType(fileName: String, path: String) -> String {
        let byName = MultipartFormData.mimeType(forPathExtension: pathExtension(fileName))
        guard byName == "application/octet-stream" else { return byName }
        return MultipartFormData.mimeType(forPathExtension: pathExtension(path))
    }

    /// The extension of a path's last component (`""` when it has none, or is a dot file).
    static func pathExtension(_ path: String) -> String {
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return String(last[last.index(after: dot)...])
    }

    /// A whole file (`-`: standard input) for a field's value.
    private static func read(_ path: String, readFile: PostData.FileReader) throws(NetworkError) -> [UInt8] {
        guard let bytes = readFile(path) else {
            let source = path == "-" ? "standard input" : path
            throw NetworkError(.cannotOpenFile, reason: "Cannot read \(source) for the multipart form")
        }
        return bytes
    }
}
