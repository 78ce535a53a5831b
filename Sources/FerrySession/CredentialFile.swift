#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import FerryIO
import FoundationEssentials
import Synchronization

/// The JSON file of permanent credentials: what it holds, and reading and writing it safely.
/// `{"version": 1, "credentials": [{"space": {…}, "user": …, "password": …, "isDefault": …}]}`.
enum CredentialFile {
    typealias FileError = CredentialStorage.FileError

    /// The largest file read: credentials are a few hundred bytes each.
    static let limit = 1 << 20
    /// The format this code reads and writes.
    static let version = 1

    struct Contents: Codable {
        var version: Int
        var credentials: [Entry]
    }

    struct Entry: Codable, Equatable {
        var space: Space
        var user: String
        var password: String
        var isDefault: Bool

        var sortKey: [String] {
            [space.host, String(space.port), space.protocol, space.realm ?? "", space.authenticationMethod,
             space.isProxy ? "proxy" : "", user]
        }
    }

    /// A ``ProtectionSpace`` without its server trust, which is never written.
    struct Space: Codable, Equatable {
        var host: String
        var port: Int
        var `protocol`: String
        var realm: String?
        var authenticationMethod: String
        var isProxy: Bool

        init(_ space: ProtectionSpace) {
            host = space.host
            port = space.port
            self.protocol = space.protocol
            realm = space.realm
            authenticationMethod = space.authenticationMethod.rawValue
            isProxy = space.isProxy
        }

        var protectionSpace: ProtectionSpace {
            ProtectionSpace(host: host, port: port, protocol: self.protocol, realm: realm,
                            authenticationMethod: AuthenticationMethod(rawValue: authenticationMethod), isProxy: isProxy)
        }
    }

    private struct VersionOnly: Decodable {
        var version: Int
    }

    /// The entries of the file at `url`; none when it does not exist.
    static func read(_ url: URL) throws(FileError) -> [Entry] {
        let path = url.path
        // O_NONBLOCK: a FIFO put in the file's place must not hang the caller.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0, errno == ENOENT { return [] }
        guard fd >= 0 else { throw systemFailure(.unreadable, path) }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw systemFailure(.unreadable, path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileError(.unreadable, path: path, detail: "not a regular file") }
        guard info.st_uid == geteuid() else {
            throw FileError(.insecurePermissions, path: path, detail: "owned by uid \(info.st_uid), not by this user (uid \(geteuid()))")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw FileError(.insecurePermissions, path: path,
                            detail: "mode 0\(String(mode, radix: 8)) lets others read it; expected 0600 (chmod 600 the file)")
        }
        let bytes = try readAll(fd, path: path)
        do {
            let decoder = JSONDecoder()
            let version = try decoder.decode(VersionOnly.self, from: bytes).version
            guard version == Self.version else {
                throw FileError(.corrupt, path: path, detail: "unsupported version \(version)")
            }
            return try decoder.decode(Contents.self, from: bytes).credentials
        } catch let error as FileError {
            throw error
        } catch let error as DecodingError {
            throw FileError(.corrupt, path: path, detail: describe(error))
        } catch {
            throw FileError(.corrupt, path: path, detail: "not JSON")
        }
    }

    /// Replaces the file at `url` with `entries`: a new 0600 file in the same directory,
    /// written, synced, then renamed over the old one, so a reader sees either file whole.
    static func write(_ entries: [Entry], to url: URL) throws(FileError) {
        let path = url.path
        let directory = url.deletingLastPathComponent().path
        try makeDirectory(directory, for: path)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(Contents(version: version, credentials: entries))
        } catch {
            throw FileError(.unwritable, path: path, detail: "cannot encode the credentials")
        }
        do throws(SystemError) {
            try PrivateFile.replace(path, with: [UInt8](data))
        } catch {
            throw FileError(.unwritable, path: path, detail: "\(error.syscall): \(error.errnoText)")
        }
    }

    /// Creates `directory` and its missing parents with mode 0700 (the XDG rule).
    private static func makeDirectory(_ directory: String, for path: String) throws(FileError) {
        var info = stat()
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw FileError(.unwritable, path: path, detail: "\(directory) is not a directory")
            }
            return
        }
        guard errno == ENOENT else { throw systemFailure(.unwritable, path, call: "stat") }
        let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        if !parent.isEmpty { try makeDirectory(parent, for: path) }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw systemFailure(.unwritable, path, call: "mkdir") }
    }

    private static func readAll(_ fd: Int32, path: String) throws(FileError) -> Data {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return Data(bytes) }
            if count < 0 {
                if errno == EINTR { continue }
                throw systemFailure(.unreadable, path)
            }
            guard bytes.count + count <= limit else { throw FileError(.corrupt, path: path, detail: "larger than 1 MiB") }
            bytes += buffer[..<count]
        }
    }

    /// An error with the system's words for `errno`, as set by the failed call.
    private static func systemFailure(_ kind: FileError.Kind, _ path: String, call: String? = nil) -> FileError {
        let text = String(cString: strerror(errno))
        return FileError(kind, path: path, detail: call.map { "\($0): \(text)" } ?? text)
    }

    /// What in the JSON was wrong, by key path: never a value, which could be a password.
    private static func describe(_ error: DecodingError) -> String {
        func at(_ context: DecodingError.Context) -> String {
            context.codingPath.isEmpty ? "" : " at " + context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
                .joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "invalid value" + at(context)
        case .keyNotFound(let key, let context): return "missing \"\(key.stringValue)\"" + at(context)
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "wrong type" + at(context)
        @unknown default: return "not a credential file"
        }
    }
}
