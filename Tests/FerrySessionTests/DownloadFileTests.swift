#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import FerryIO
import Foundation
import Testing
import TestSupport

@testable import FerrySession

/// A destination in a directory the caller cannot write cannot be replaced in one step, so it
/// is written in place: it must stay as it was until the first body byte, and never be removed.
struct DownloadFileTests {
    /// The new file beside the destination cannot be made, as in a directory without write
    /// permission (as root, the tests cannot make one).
    static func refused(_ destination: String) throws(SystemError) -> (fd: Int32, path: String) {
        throw SystemError(errno: EACCES, syscall: "openat")
    }

    @Test("in a directory the caller cannot write: untouched until the first byte, then cut; never removed")
    func writtenInPlace() throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("kept.bin").path
        func contents() throws -> String { String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self) }
        try Data("old content".utf8).write(to: URL(fileURLWithPath: path))

        // A download that fails before its first byte (a refused connection) leaves it as it was.
        try DownloadFile.create(replacing: path, makeSibling: Self.refused).discard()
        #expect(try contents() == "old content")

        // One that fails part way leaves what arrived, in the file it could not replace.
        let partial = try DownloadFile.create(replacing: path, makeSibling: Self.refused)
        let wrote = Array("new".utf8).withUnsafeBytes { bytes -> Bool in (try? partial.write(bytes)) != nil }
        #expect(wrote)
        partial.discard()
        #expect(try contents() == "new")

        // An empty body that completes empties it.
        let empty = try DownloadFile.create(replacing: path, makeSibling: Self.refused)
        try empty.applyPendingCut()
        try empty.close()
        #expect(try empty.commit() == path)
        #expect(try contents() == "")
    }
}
