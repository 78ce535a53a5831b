import FerryBase
import FoundationEssentials
import Synchronization

/// The Basic answers a session has seen accepted, sent with later requests to the same place
/// before the server asks (RFC 7617 §2.2: the same origin, at or below the accepted URL's
/// directory), as URLSession and browsers do. It saves a round trip per request; a credential
/// that stops working earns a 401, answered as any other.
///
/// Bounded (``capacity`` entries, the oldest forgotten first) and cheap when empty: a request
/// of a session that never authenticated reads one atomic counter.
final class PreemptiveAuthentication: Sendable {
    /// Most places remembered.
    static let capacity = 64

    private struct Entry {
        var origin: Origin
        /// The accepted URL's path up to its last `/`.
        var directory: String
        /// The `Authorization` value that was accepted.
        var authorization: String
    }

    private struct Origin: Equatable {
        var scheme: String
        var host: String
        var port: Int

        init(_ url: URL) {
            scheme = url.scheme?.lowercased() ?? ""
            host = url.host(percentEncoded: false).map { String(HostName.unbracketed($0)).lowercased() } ?? ""
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }
    }

    private let entries = Mutex<[Entry]>([])
    private let count = Atomic<Int>(0)

    /// Remembers that `authorization` was accepted for `url`.
    func remember(_ authorization: String, for url: URL) {
        let entry = Entry(origin: Origin(url), directory: Self.directory(of: url), authorization: authorization)
        let total = entries.withLock { entries -> Int in
            entries.removeAll { $0.origin == entry.origin && $0.directory == entry.directory }
            entries.append(entry)
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
            return entries.count
        }
        count.store(total, ordering: .releasing)
    }

    /// The `Authorization` value to send with a request for `url`, if one was accepted there
    /// (the longest matching directory wins).
    func authorization(for url: URL) -> String? {
        guard count.load(ordering: .acquiring) > 0 else { return nil }
        let origin = Origin(url)
        let path = url.path(percentEncoded: true)
        return entries.withLock { entries in
            entries.filter { $0.origin == origin && (path.isEmpty ? "/" : path).hasPrefix($0.directory) }
                .max { $0.directory.count < $1.directory.count }?.authorization
        }
    }

    /// `/a/b/c` → `/a/b/`; an empty path → `/`.
    private static func directory(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        guard let slash = path.lastIndex(of: "/") else { return "/" }
        return String(path[...slash])
    }
}
