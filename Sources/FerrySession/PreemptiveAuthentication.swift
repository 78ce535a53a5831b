import FerryBase
import FoundationEssentials
import Synchronization

/// The Basic answers a session has seen accepted, sent with later requests to the same place
/// before the server asks (RFC 7617 §2.2: the same origin, at or below the accepted URL's
/// directory), as URLSession and browsers do. It saves a round trip per request.
///
/// Only answers from credentials the caller let the session keep (persistence `.forSession`
/// or `.permanent`) are remembered, and a request that brings its own credential (or user
/// information in its URL) gets an answer only from that same credential. An answer the server
/// refuses is forgotten, and counts as the task's attempt, so it is not sent twice.
///
/// Bounded (``capacity`` entries, the oldest forgotten first) and cheap when empty: a request
/// of a session that never authenticated reads one atomic counter.
final class PreemptiveAuthentication: Sendable {
    /// Most places remembered.
    static let capacity = 64

    /// An answer sent up front, and what it answers.
    struct Answer: Sendable {
        /// The `Authorization` value.
        var authorization: String
        /// The protection space it was accepted for.
        var space: ProtectionSpace
        /// The credential it was made from.
        var credential: Credential
    }

    private struct Entry {
        var origin: Origin
        /// The accepted URL's path up to its last `/`.
        var directory: String
        var answer: Answer
    }

    private let entries = Locked<[Entry]>([])
    private let count = Atomic<Int>(0)

    /// Remembers that `authorization`, made from `credential`, was accepted for `url`.
    func remember(_ authorization: String, for url: URL, space: ProtectionSpace, credential: Credential) {
        let entry = Entry(origin: Origin(url), directory: Self.directory(of: url),
                          answer: Answer(authorization: authorization, space: space, credential: credential))
        update { entries in
            entries.removeAll { $0.origin == entry.origin && $0.directory == entry.directory }
            entries.append(entry)
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
        }
    }

    /// Forgets every place where `authorization` was accepted: the server refused it.
    func forget(_ authorization: String) {
        update { entries in entries.removeAll { $0.answer.authorization == authorization } }
    }

    /// The answer to send with `request` before the server asks, if one was accepted there
    /// (the longest matching directory wins) from the request's own credential, when it has one.
    func answer(for request: NetworkRequest) -> Answer? {
        guard count.load(ordering: .acquiring) > 0 else { return nil }
        let url = request.url
        let own = request.credential ?? SessionTask.userInformation(of: url)
        let origin = Origin(url)
        let path = url.path(percentEncoded: true)
        return entries.withLock { entries in
            entries.filter { entry in
                guard entry.origin == origin, (path.isEmpty ? "/" : path).hasPrefix(entry.directory) else { return false }
                guard let own else { return true }
                return own.user == entry.answer.credential.user && own.password == entry.answer.credential.password
            }
            .max { $0.directory.count < $1.directory.count }?.answer
        }
    }

    private func update(_ change: (inout [Entry]) -> Void) {
        let total = entries.withLock { entries -> Int in
            change(&entries)
            return entries.count
        }
        count.store(total, ordering: .releasing)
    }

    /// `/a/b/c` → `/a/b/`; an empty path → `/`.
    private static func directory(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        guard let slash = path.lastIndex(of: "/") else { return "/" }
        return String(path[...slash])
    }
}
