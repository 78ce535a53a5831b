import BenchSupport
import Glibc

/// Writes `text` to `path`, replacing it.
/// - Throws: ``BenchError`` naming the path and errno.
func writeFile(_ path: String, _ text: String) throws(BenchError) {
    guard let file = fopen(path, "w") else {
        throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    let written = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
    guard written == text.utf8.count else { throw BenchError("cannot write \(path)") }
}

/// The contents of a file as text (lossy UTF-8), or nil when it cannot be read.
func readFile(_ path: String, from offset: Int = 0) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    if offset > 0 { fseek(file, offset, SEEK_SET) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// A file's size, or nil when it does not exist.
func fileSize(_ path: String) -> Int64? {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : nil
}
