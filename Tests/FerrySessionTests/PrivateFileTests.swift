// The files Ferry creates for itself (temporary downloads, the siblings that replace a cookie
// jar or credential file): mode 0600, exclusive, and never inherited by a child process.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import FerryIO
@testable import FerrySession

@Suite("Private files")
struct PrivateFileTests {
    /// Mode bits and close-on-exec of an open descriptor.
    static func modeAndCloseOnExec(_ fd: Int32) -> (mode: mode_t, closeOnExec: Bool) {
        var info = stat()
        _ = fstat(fd, &info)
        return (info.st_mode & 0o777, fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test func aTemporaryDownloadIsPrivateAndCloseOnExecFromTheStart() throws {
        let file = try DownloadFile.createTemporary()
        defer { file.discard() }
        #expect(DownloadFile.isTemporaryPath(file.path))
        let (mode, closeOnExec) = Self.modeAndCloseOnExec(file.fd)
        #expect(mode & 0o077 == 0, "no bits for group or others")
        #expect(closeOnExec)
    }

    @Test func aUniqueFileIsNeverAnExistingOne() throws {
        let directory = FileManager.default.temporaryDirectory.path
        let taken = directory + "/ferry-private-\(UUID().uuidString)"
        let fd = open(taken, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd); unlink(taken) }
        // Every name the maker gives exists: refused with EEXIST, never opened.
        #expect(throws: SystemError.self) { try PrivateFile.createUnique { _ in taken } }
        let made = try PrivateFile.createUnique { random in taken + "." + random }
        defer { close(made.fd); unlink(made.path) }
        #expect(made.path.hasPrefix(taken + ".") && made.path != taken)
        let (mode, closeOnExec) = Self.modeAndCloseOnExec(made.fd)
        #expect(mode & 0o077 == 0)
        #expect(closeOnExec)
    }
}
