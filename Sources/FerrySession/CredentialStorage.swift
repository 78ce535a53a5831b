#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import FoundationEssentials
import Synchronization

/// User names and passwords by protection space: the counterpart of `URLCredentialStorage`.
///
/// Rules, as URLCredentialStorage's where it has one:
/// - Only user/password credentials are stored. ``Credential/Persistence/none`` ones, and
///   client-identity or server-trust credentials, are ignored by every setter.
/// - Each space holds at most one credential per user name; setting another for the same user
///   replaces it. The default credential of a space is one of them, named by its user:
///   replacing that user's credential changes the default, removing it clears the default.
/// - ``Credential/Persistence/forSession`` credentials live in memory for this object's life.
///   ``Credential/Persistence/permanent`` ones are also written to ``fileURL`` (JSON, mode
///   0600) after every change that touches them; without a file they are kept in memory only.
/// - The file is read on first use. A missing file is an empty store. A file that cannot be
///   read, is not JSON of the expected shape, is larger than 1 MiB, or is readable by anyone
///   but its owner (mode not within 0600, or another owner) is refused, never repaired: the
///   store then starts empty, ``fileError`` says why, and the file is left untouched (no write
///   replaces it) until ``load()`` succeeds. Fix the file (`chmod 600`) or remove it.
/// - Writes replace the file atomically (a new 0600 file in the same directory, `fsync`,
///   `rename`), creating missing directories with mode 0700. A failed write leaves the old
///   file, keeps the change in memory, and is reported in ``fileError``. Two processes sharing
///   a file do not merge: the last to write wins.
/// - A server's certificate chain (``ProtectionSpace/serverTrust``) is never written.
///
/// All methods are thread-safe; file work happens under the store's lock.
public final class CredentialStorage: Sendable {
    /// The store shared by sessions, kept in ``defaultFileURL``.
    public static let shared = CredentialStorage(fileURL: CredentialStorage.defaultFileURL)

    /// `$XDG_DATA_HOME/ferry/credentials.json` when that variable is an absolute path, else
    /// `$HOME/.local/share/ferry/credentials.json`; nil when neither is set (memory only).
    public static var defaultFileURL: URL? {
        defaultFileURL { name in getenv(name).map { String(cString: $0) } }
    }

    /// The file ``Credential/Persistence/permanent`` credentials are kept in; nil when they
    /// are kept in memory only.
    public let fileURL: URL?

    private let state = Locked(State())

    /// Creates a store.
    /// - Parameter fileURL: Where permanent credentials are kept, read on first use; nil to
    ///   keep everything in memory.
    public init(fileURL: URL?) {
        self.fileURL = fileURL
    }

    /// Creates a store over `fileURL`, reading it now.
    /// - Throws: ``FileError``: `unreadable`, `insecurePermissions` or `corrupt` (a missing
    ///   file is not an error).
    public convenience init(contentsOf fileURL: URL) throws(FileError) {
        self.init(fileURL: fileURL)
        try load()
    }

    // MARK: - URLCredentialStorage's API

    /// The credentials for `space`, by user name (empty when none).
    public func credentials(for space: ProtectionSpace) -> [String: Credential] {
        withState { $0.credentials[space] ?? [:] }
    }

    /// The default credential for `space`, if one was set.
    public func defaultCredential(for space: ProtectionSpace) -> Credential? {
        withState { state in state.defaults[space].flatMap { state.credentials[space]?[$0] } }
    }

    /// Every credential, by protection space and user name.
    public var allCredentials: [ProtectionSpace: [String: Credential]] {
        withState { $0.credentials }
    }

    /// Stores `credential` for `space`, replacing the one of the same user. Ignored for
    /// ``Credential/Persistence/none`` and for credentials without a user and password.
    public func set(_ credential: Credential, for space: ProtectionSpace) {
        update { state in state.store(credential, for: space) }
    }

    /// Stores `credential` for `space` (as ``set(_:for:)``) and makes it the space's default.
    /// Ignored when ``set(_:for:)`` would ignore it.
    public func setDefaultCredential(_ credential: Credential, for space: ProtectionSpace) {
        update { state in
            guard let user = state.store(credential, for: space) else { return }
            state.defaults[space] = user
        }
    }

    /// Removes the credential of `credential`'s user from `space` (whatever its password),
    /// and the space's default if it was that user's.
    public func remove(_ credential: Credential, for space: ProtectionSpace) {
        guard let user = credential.user else { return }
        update { state in
            state.credentials[space]?[user] = nil
            if state.credentials[space]?.isEmpty == true { state.credentials[space] = nil }
            if state.defaults[space] == user { state.defaults[space] = nil }
        }
    }

    // MARK: - The file

    /// Why the file was last refused or could not be written; nil after a successful read or
    /// write, and always nil without a file.
    public var fileError: FileError? {
        withState { $0.fileError }
    }

    /// Reads ``fileURL`` again: its credentials replace the permanent ones in memory (session
    /// ones stay). A missing file is an empty store. Does nothing without a file.
    /// - Throws: ``FileError``: `unreadable`, `insecurePermissions` or `corrupt`; the store
    ///   then keeps its permanent credentials in memory only and leaves the file untouched.
    public func load() throws(FileError) {
        guard let fileURL else { return }
        try state.withLock { state throws(FileError) in
            state.loaded = true
            do throws(FileError) {
                let entries = try CredentialFile.read(fileURL)
                state.replacePermanent(with: entries)
                state.fileError = nil
                state.mayWriteFile = true
            } catch {
                state.fileError = error
                state.mayWriteFile = false
                throw error
            }
        }
    }

    // MARK: - Internals

    /// `$XDG_DATA_HOME/ferry/credentials.json`, else `$HOME/.local/share/ferry/…`, looked up
    /// through `environment`. A relative `XDG_DATA_HOME` is ignored, as the XDG spec says.
    static func defaultFileURL(environment: (String) -> String?) -> URL? {
        if let data = environment("XDG_DATA_HOME"), data.hasPrefix("/") {
            return URL(filePath: data, directoryHint: .isDirectory).appending(path: "ferry/credentials.json")
        }
        if let home = environment("HOME"), home.hasPrefix("/") {
            return URL(filePath: home, directoryHint: .isDirectory).appending(path: ".local/share/ferry/credentials.json")
        }
        return nil
    }

    /// Runs `body` on the state, reading the file first if this is the first use.
    private func withState<R: Sendable>(_ body: (inout State) -> R) -> R {
        state.withLock { state in
            loadIfNeeded(&state)
            return body(&state)
        }
    }

    /// Runs `change`, then writes the file if the permanent credentials changed.
    private func update(_ change: (inout State) -> Void) {
        state.withLock { state in
            loadIfNeeded(&state)
            let before = state.permanentEntries()
            change(&state)
            guard let fileURL, state.mayWriteFile else { return }
            let after = state.permanentEntries()
            guard after != before else { return }
            do throws(FileError) {
                try CredentialFile.write(after, to: fileURL)
                state.fileError = nil
            } catch {
                state.fileError = error
            }
        }
    }

    private func loadIfNeeded(_ state: inout State) {
        guard !state.loaded else { return }
        state.loaded = true
        guard let fileURL else { return }
        do throws(FileError) {
            state.replacePermanent(with: try CredentialFile.read(fileURL))
            state.mayWriteFile = true
        } catch {
            state.fileError = error
        }
    }

    /// What the lock guards.
    private struct State: Sendable {
        var loaded = false
        var credentials: [ProtectionSpace: [String: Credential]] = [:]
        /// The default credential's user, by space.
        var defaults: [ProtectionSpace: String] = [:]
        var fileError: FileError?
        /// Whether the file was read (or found missing), so writing cannot destroy what could
        /// not be read.
        var mayWriteFile = false

        /// Stores `credential`, returning its user; nil when it is not to be stored.
        @discardableResult
        mutating func store(_ credential: Credential, for space: ProtectionSpace) -> String? {
            guard credential.persistence != .none, let user = credential.user, credential.password != nil else { return nil }
            credentials[space, default: [:]][user] = credential
            return user
        }

        /// Replaces the permanent credentials with `entries`; session ones stay.
        mutating func replacePermanent(with entries: [CredentialFile.Entry]) {
            for (space, byUser) in credentials {
                for (user, credential) in byUser where credential.persistence == .permanent {
                    credentials[space]?[user] = nil
                    if defaults[space] == user { defaults[space] = nil }
                }
                if credentials[space]?.isEmpty == true { credentials[space] = nil }
            }
            for entry in entries {
                let space = entry.space.protectionSpace
                credentials[space, default: [:]][entry.user] = Credential(user: entry.user, password: entry.password,
                                                                          persistence: .permanent)
                if entry.isDefault { defaults[space] = entry.user }
            }
        }

        /// The permanent credentials as the file holds them, in a stable order.
        func permanentEntries() -> [CredentialFile.Entry] {
            var entries: [CredentialFile.Entry] = []
            for (space, byUser) in credentials {
                for (user, credential) in byUser where credential.persistence == .permanent {
                    guard let password = credential.password else { continue }
                    entries.append(CredentialFile.Entry(space: CredentialFile.Space(space), user: user, password: password,
                                                        isDefault: defaults[space] == user))
                }
            }
            return entries.sorted { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }
        }
    }
}

// MARK: - Errors

extension CredentialStorage {
    /// Why the credential file was refused or could not be written.
    public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong: a stable name for programs and a phrase for people. An open set;
        /// the kinds are the static members below.
        public typealias Kind = ErrorKind<FileError>

        /// What was wrong.
        public let kind: Kind
        /// The file's path.
        public let path: String
        /// The cause in words (the system's text, what in the JSON was wrong, the mode). Never
        /// a credential.
        public let detail: String

        /// Creates an error of `kind` about the file at `path`.
        public init(_ kind: Kind, path: String, detail: String) {
            self.kind = kind
            self.path = path
            self.detail = detail
        }

        /// `credential file refused /home/u/.local/share/ferry/credentials.json: mode 0644 …`.
        public var description: String { "\(kind.text) \(path): \(detail)" }
    }
}

/// The kinds of ``CredentialStorage/FileError``.
extension CredentialStorage.FileError.Kind {
    /// The file exists but could not be opened or read (permissions, a directory, I/O).
    public static var unreadable: Self { Self("unreadable", text: "cannot read credential file") }
    /// Someone other than its owner may read or write the file, or another user owns it.
    public static var insecurePermissions: Self {
        Self("insecurePermissions", text: "credential file refused (readable by others)")
    }
    /// The file is not a credential file (not JSON, wrong shape or version, too large).
    public static var corrupt: Self { Self("corrupt", text: "credential file refused (corrupt)") }
    /// The file or its directory could not be written.
    public static var unwritable: Self { Self("unwritable", text: "cannot write credential file") }
}
