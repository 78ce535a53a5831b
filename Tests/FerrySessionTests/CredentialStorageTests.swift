// CredentialStorage: URLCredentialStorage's memory semantics, default credentials, and the
// permanent file (mode 0600, atomic, read lazily, corrupt or loose files refused, never
// overwritten), each in a directory of its own.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

@testable import FerrySession

@Suite("Credential storage")
struct CredentialStorageTests {
    static let space = ProtectionSpace(host: "api.example", port: 443, protocol: "https", realm: "r", authenticationMethod: .httpBasic)
    static let otherRealm = ProtectionSpace(host: "api.example", port: 443, protocol: "https", realm: "other",
                                            authenticationMethod: .httpBasic)
    static let proxy = ProtectionSpace(host: "proxy.example", port: 3128, protocol: "http", authenticationMethod: .httpDigest,
                                       isProxy: true)

    /// `user:password:persistence`, so credentials (not Equatable) compare in expectations.
    static func summary(_ credential: Credential?) -> String? {
        credential.map { "\($0.user ?? "-"):\($0.password ?? "-"):\($0.persistence)" }
    }

    /// A fresh directory, removed with its contents when `body` returns.
    static func inTemporaryDirectory(_ body: (String) throws -> Void) throws {
        var template = Array("\(FileManager.default.temporaryDirectory.path)/ferry-credentials-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(created != nil)
        let directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    static func mode(of path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    static func write(_ text: String, to path: String, mode: mode_t = 0o600) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
        try #require(fd >= 0)
        defer { close(fd) }
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        _ = fchmod(fd, mode)
    }

    static func contents(of path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    // MARK: - Memory

    @Test("credentials are kept per space and user; the same user is replaced")
    func perSpaceAndUser() {
        let storage = CredentialStorage(fileURL: nil)
        storage.set(Credential(user: "alice", password: "a1", persistence: .forSession), for: Self.space)
        storage.set(Credential(user: "bob", password: "b1", persistence: .permanent), for: Self.space)
        storage.set(Credential(user: "alice", password: "a2", persistence: .forSession), for: Self.space)
        let stored = storage.credentials(for: Self.space)
        #expect(stored.keys.sorted() == ["alice", "bob"])
        #expect(Self.summary(stored["alice"]) == "alice:a2:forSession")
        #expect(Self.summary(stored["bob"]) == "bob:b1:permanent")
        #expect(storage.credentials(for: Self.otherRealm).isEmpty)
        #expect(storage.allCredentials.count == 1)
        #expect(storage.fileError == nil)
    }

    @Test("`.none` credentials, and credentials without user or password, are never stored")
    func notStored() {
        let storage = CredentialStorage(fileURL: nil)
        storage.set(Credential(user: "alice", password: "a", persistence: .none), for: Self.space)
        storage.setDefaultCredential(Credential(user: "bob", password: "b", persistence: .none), for: Self.space)
        var noPassword = Credential(user: "carol", password: "c", persistence: .forSession)
        noPassword.password = nil
        storage.set(noPassword, for: Self.space)
        var noUser = Credential(user: "dave", password: "d", persistence: .permanent)
        noUser.user = nil
        storage.setDefaultCredential(noUser, for: Self.space)
        #expect(storage.credentials(for: Self.space).isEmpty)
        #expect(storage.defaultCredential(for: Self.space) == nil)
        #expect(storage.allCredentials.isEmpty)
    }

    @Test("the default credential is stored too, follows its user, and goes with it")
    func defaultCredential() {
        let storage = CredentialStorage(fileURL: nil)
        storage.setDefaultCredential(Credential(user: "alice", password: "a1", persistence: .forSession), for: Self.space)
        storage.set(Credential(user: "bob", password: "b", persistence: .forSession), for: Self.space)
        #expect(Self.summary(storage.defaultCredential(for: Self.space)) == "alice:a1:forSession")
        #expect(storage.credentials(for: Self.space).count == 2)
        storage.set(Credential(user: "alice", password: "a2", persistence: .permanent), for: Self.space)
        #expect(Self.summary(storage.defaultCredential(for: Self.space)) == "alice:a2:permanent")
        #expect(storage.defaultCredential(for: Self.otherRealm) == nil)
        // Removal is by user, whatever the password.
        storage.remove(Credential(user: "alice", password: "anything", persistence: .none), for: Self.space)
        #expect(storage.defaultCredential(for: Self.space) == nil)
        #expect(storage.credentials(for: Self.space).keys.sorted() == ["bob"])
        storage.remove(Credential(user: "bob", password: "b", persistence: .forSession), for: Self.space)
        #expect(storage.allCredentials.isEmpty)
    }

    @Test("without a file, permanent credentials live in memory")
    func memoryOnlyPermanent() {
        let storage = CredentialStorage(fileURL: nil)
        storage.setDefaultCredential(Credential(user: "alice", password: "a", persistence: .permanent), for: Self.proxy)
        #expect(Self.summary(storage.defaultCredential(for: Self.proxy)) == "alice:a:permanent")
        #expect(storage.fileError == nil)
        #expect(throws: Never.self) { try storage.load() }
    }

    @Test("concurrent callers see every credential")
    func concurrent() async {
        let storage = CredentialStorage(fileURL: nil)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    storage.set(Credential(user: "user\(index)", password: "p", persistence: .forSession), for: Self.space)
                    _ = storage.credentials(for: Self.space)
                }
            }
        }
        #expect(storage.credentials(for: Self.space).count == 200)
    }

    // MARK: - The file

    @Test("permanent credentials round-trip through a 0600 file in a new 0700 directory")
    func roundTrip() throws {
        try Self.inTemporaryDirectory { directory throws in
            let path = "\(directory)/data/ferry/credentials.json"
            let url = URL(filePath: path)
            let storage = CredentialStorage(fileURL: url)
            storage.setDefaultCredential(Credential(user: "alice", password: "secret-a", persistence: .permanent), for: Self.space)
            storage.set(Credential(user: "bob", password: "secret-b", persistence: .forSession), for: Self.space)
            storage.set(Credential(user: "carol", password: "secret \"c\"", persistence: .permanent), for: Self.proxy)
            #expect(storage.fileError == nil)
            #expect(Self.mode(of: path) == 0o600)
            #expect(Self.mode(of: "\(directory)/data/ferry") == 0o700)
            #expect(Self.mode(of: "\(directory)/data") == 0o700)
            let text = try Self.contents(of: path)
            #expect(!text.contains("secret-b"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(directory)/data/ferry") == ["credentials.json"])

            let reloaded = try CredentialStorage(contentsOf: url)
            #expect(reloaded.credentials(for: Self.space).keys.sorted() == ["alice"])
            #expect(Self.summary(reloaded.defaultCredential(for: Self.space)) == "alice:secret-a:permanent")
            #expect(Self.summary(reloaded.credentials(for: Self.proxy)["carol"]) == "carol:secret \"c\":permanent")
            #expect(reloaded.allCredentials.keys.contains { $0.isProxy && $0.authenticationMethod == .httpDigest && $0.port == 3128 })
        }
    }

    @Test("only permanent credentials reach the file: `.none` and session ones never do")
    func nothingElseWritten() throws {
        try Self.inTemporaryDirectory { directory throws in
            let path = "\(directory)/credentials.json"
            let storage = CredentialStorage(fileURL: URL(filePath: path))
            storage.set(Credential(user: "alice", password: "none-secret", persistence: .none), for: Self.space)
            storage.setDefaultCredential(Credential(user: "bob", password: "session-secret", persistence: .forSession), for: Self.space)
            #expect(Self.mode(of: path) == nil)
            storage.set(Credential(user: "carol", password: "kept", persistence: .permanent), for: Self.space)
            let text = try Self.contents(of: path)
            #expect(text.contains("kept"))
            #expect(!text.contains("none-secret") && !text.contains("session-secret"))
        }
    }

    @Test("removing and replacing rewrite the file")
    func rewrites() throws {
        try Self.inTemporaryDirectory { directory throws in
            let url = URL(filePath: "\(directory)/credentials.json")
            let storage = CredentialStorage(fileURL: url)
            storage.set(Credential(user: "alice", password: "a", persistence: .permanent), for: Self.space)
            storage.set(Credential(user: "bob", password: "b", persistence: .permanent), for: Self.space)
            storage.remove(Credential(user: "alice", password: "a", persistence: .permanent), for: Self.space)
            #expect(try CredentialStorage(contentsOf: url).credentials(for: Self.space).keys.sorted() == ["bob"])
            // Made a session credential: it leaves the file.
            storage.set(Credential(user: "bob", password: "b", persistence: .forSession), for: Self.space)
            #expect(try CredentialStorage(contentsOf: url).allCredentials.isEmpty)
            #expect(Self.mode(of: url.path) == 0o600)
        }
    }

    @Test("the file is read on first use, not at creation")
    func lazy() throws {
        try Self.inTemporaryDirectory { directory throws in
            let url = URL(filePath: "\(directory)/credentials.json")
            let storage = CredentialStorage(fileURL: url)
            CredentialStorage(fileURL: url).set(Credential(user: "alice", password: "a", persistence: .permanent), for: Self.space)
            #expect(storage.credentials(for: Self.space).keys.sorted() == ["alice"])
        }
    }

    @Test("a missing file is an empty store")
    func missing() throws {
        try Self.inTemporaryDirectory { directory throws in
            let storage = try CredentialStorage(contentsOf: URL(filePath: "\(directory)/none/credentials.json"))
            #expect(storage.allCredentials.isEmpty)
            #expect(storage.fileError == nil)
        }
    }

    @Test("a corrupt file is refused, reported, and never overwritten", arguments: [
        ("not json at all", "not JSON"),
        (#"{"version": 1, "credentials": [{"user": "x", "password": "p-secret"}]}"#, "missing \"space\" at credentials.0"),
        (#"{"version": 2, "credentials": []}"#, "unsupported version 2"),
        (#"{"version": 1, "credentials": [{"space": 5, "user": "x", "password": "p-secret", "isDefault": false}]}"#, "wrong type"),
    ])
    func corrupt(_ text: String, _ detail: String) throws {
        try Self.inTemporaryDirectory { directory throws in
            let path = "\(directory)/credentials.json"
            try Self.write(text, to: path)
            let error = try #require(throws: CredentialStorage.FileError.self) { try CredentialStorage(contentsOf: URL(filePath: path)) }
            #expect(error.kind == .corrupt)
            #expect(error.detail.contains(detail))
            #expect(!error.description.contains("p-secret"))

            let storage = CredentialStorage(fileURL: URL(filePath: path))
            #expect(storage.allCredentials.isEmpty)
            #expect(storage.fileError?.kind == .corrupt)
            storage.set(Credential(user: "alice", password: "a", persistence: .permanent), for: Self.space)
            #expect(storage.credentials(for: Self.space).count == 1)
            #expect(try Self.contents(of: path) == text)
            #expect(storage.fileError?.kind == .corrupt)

            // Once the file is fixed (here: removed), load succeeds and writing resumes.
            try FileManager.default.removeItem(atPath: path)
            try storage.load()
            #expect(storage.fileError == nil)
            storage.set(Credential(user: "bob", password: "b", persistence: .permanent), for: Self.space)
            #expect(try CredentialStorage(contentsOf: URL(filePath: path)).credentials(for: Self.space).keys.sorted() == ["bob"])
        }
    }

    @Test("a file others may read is refused, not repaired", arguments: [mode_t(0o644), 0o640, 0o604, 0o660])
    func insecure(_ mode: mode_t) throws {
        try Self.inTemporaryDirectory { directory throws in
            let url = URL(filePath: "\(directory)/credentials.json")
            let writer = CredentialStorage(fileURL: url)
            writer.set(Credential(user: "alice", password: "a", persistence: .permanent), for: Self.space)
            #expect(chmod(url.path, mode) == 0)
            let error = try #require(throws: CredentialStorage.FileError.self) { try CredentialStorage(contentsOf: url) }
            #expect(error.kind == .insecurePermissions)
            #expect(error.detail.contains("0\(String(mode, radix: 8))"))
            let storage = CredentialStorage(fileURL: url)
            #expect(storage.allCredentials.isEmpty)
            storage.set(Credential(user: "bob", password: "b", persistence: .permanent), for: Self.space)
            #expect(Self.mode(of: url.path) == mode)
        }
    }

    @Test("a file that cannot be written is reported; the credential stays in memory")
    func unwritable() throws {
        try Self.inTemporaryDirectory { directory throws in
            // A dangling symbolic link as the directory: reading finds no file, writing fails.
            #expect(symlink("\(directory)/nowhere/at/all", "\(directory)/link") == 0)
            let storage = CredentialStorage(fileURL: URL(filePath: "\(directory)/link/credentials.json"))
            storage.set(Credential(user: "alice", password: "a", persistence: .permanent), for: Self.space)
            #expect(storage.fileError?.kind == .unwritable)
            #expect(storage.credentials(for: Self.space).count == 1)
        }
    }

    @Test("a path that cannot be read is reported")
    func unreadable() throws {
        try Self.inTemporaryDirectory { directory throws in
            try Self.write("", to: "\(directory)/blocker")
            let underFile = CredentialStorage(fileURL: URL(filePath: "\(directory)/blocker/credentials.json"))
            #expect(underFile.allCredentials.isEmpty)
            #expect(underFile.fileError?.kind == .unreadable)
            let directoryItself = CredentialStorage(fileURL: URL(filePath: directory))
            #expect(throws: CredentialStorage.FileError.self) { try directoryItself.load() }
            #expect(directoryItself.fileError?.kind == .unreadable)
            #expect(directoryItself.fileError?.detail == "not a regular file")
        }
    }

    @Test("the default file follows XDG_DATA_HOME, then HOME")
    func defaultLocation() {
        func url(_ environment: [String: String]) -> String? {
            CredentialStorage.defaultFileURL { environment[$0] }?.path
        }
        #expect(url(["XDG_DATA_HOME": "/xdg", "HOME": "/home/u"]) == "/xdg/ferry/credentials.json")
        #expect(url(["XDG_DATA_HOME": "relative", "HOME": "/home/u"]) == "/home/u/.local/share/ferry/credentials.json")
        #expect(url(["XDG_DATA_HOME": "", "HOME": "/home/u"]) == "/home/u/.local/share/ferry/credentials.json")
        #expect(url([:]) == nil)
        #expect(CredentialStorage.shared.fileURL == CredentialStorage.defaultFileURL)
    }
}
