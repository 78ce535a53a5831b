// What HTTPBinServer saw: counters and the most recent request heads, shared across threads.
import FerryBase
import NIOConcurrencyHelpers
import NIOHTTP1

/// A request head as ``HTTPBinServer`` (or ``ForwardProxy``) received it.
public struct RecordedRequestHead: Sendable, CustomStringConvertible {
    /// The method, e.g. `"GET"`.
    public let method: String
    /// The request target exactly as sent, e.g. `"/get?a=1"`.
    public let uri: String
    /// `"HTTP/1.1"` or `"HTTP/1.0"`.
    public let version: String
    /// The fields in wire order, names with the case the client used.
    public let headers: [(name: String, value: String)]

    init(_ head: HTTPRequestHead) {
        method = head.method.rawValue
        uri = head.uri
        version = "HTTP/\(head.version.major).\(head.version.minor)"
        headers = head.headers.map { ($0.name, $0.value) }
    }

    /// A head parsed without NIO (``ForwardProxy``'s own parser).
    init(method: String, uri: String, version: String, headers: [(name: String, value: String)]) {
        self.method = method
        self.uri = uri
        self.version = version
        self.headers = headers
    }

    /// The values of field `name` (case-insensitive), in order.
    /// - Parameter name: a field name.
    public func values(of name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The first value of field `name` (case-insensitive), or `nil`.
    /// - Parameter name: a field name.
    public func value(of name: String) -> String? {
        values(of: name).first
    }

    /// `"GET /get HTTP/1.1"`.
    public var description: String { "\(method) \(uri) \(version)" }
}

/// Internal: thread-safe counters and a bounded list of request heads.
final class HTTPBinRecorder: Sendable {
    private struct State {
        var connections = 0
        var closedConnections = 0
        var requests = 0
        var heads: [RecordedRequestHead] = []
    }

    private let state = NIOLockedValueBox(State())
    private let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    func connectionAccepted() {
        state.withLockedValue { $0.connections += 1 }
    }

    func connectionClosed() {
        state.withLockedValue { $0.closedConnections += 1 }
    }

    func requestReceived(_ head: HTTPRequestHead) {
        let recorded = RecordedRequestHead(head)
        state.withLockedValue { state in
            state.requests += 1
            if state.heads.count >= limit { state.heads.removeFirst(state.heads.count - limit + 1) }
            state.heads.append(recorded)
        }
    }

    var connectionCount: Int { state.withLockedValue { $0.connections } }
    var closedConnectionCount: Int { state.withLockedValue { $0.closedConnections } }
    var requestCount: Int { state.withLockedValue { $0.requests } }
    var heads: [RecordedRequestHead] { state.withLockedValue { $0.heads } }

    func reset() {
        state.withLockedValue { $0 = State() }
    }
}
