import FoundationEssentials

/// bench-soak's command line.
struct SoakOptions: Sendable {
    /// The chaos server's root, `http://127.0.0.1:PORT/`.
    var url: URL
    /// How many requests in all.
    var requests = 1_000_000
    /// How many at once (and the session's connections per host).
    var inFlight = 64
    /// Picks each request's fault and size.
    var seed: UInt64 = 1
    /// The session's request timeout (no progress for this long fails a request).
    var timeout: Duration = .seconds(1)
    /// A request still running this long is a hang: the soak stops and fails.
    var hangLimit: Duration = .seconds(15)

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    init(_ arguments: ArraySlice<String>) throws {
        var url: URL?
        var rest = arguments[...]
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else { throw Invalid(description: "\(name) needs a value") }
            switch name {
            case "--url": url = URL(string: value)
            case "--requests": requests = try Self.number(value, for: name)
            case "--in-flight": inFlight = try Self.number(value, for: name)
            case "--seed": seed = UInt64(try Self.number(value, for: name))
            case "--timeout": timeout = .milliseconds(try Self.number(value, for: name) * 1000)
            case "--hang-limit": hangLimit = .seconds(try Self.number(value, for: name))
            default: throw Invalid(description: "unknown option \(name)")
            }
        }
        guard let url, url.scheme == "http", url.host() != nil else { throw Invalid(description: "--url http://127.0.0.1:PORT/ is needed") }
        guard requests > 0, inFlight > 0 else { throw Invalid(description: "--requests and --in-flight take a positive number") }
        self.url = url
    }

    private static func number(_ text: String, for name: String) throws -> Int {
        guard let value = Int(text.filter { $0 != "_" }), value >= 0 else {
            throw Invalid(description: "\(name) takes a whole number, not \(text)")
        }
        return value
    }
}
