import FerryEngine
import FerryWire
import HTTPTypes

/// How a ``Session`` behaves: headers it adds, timeouts, connection limits and decoding.
///
/// The counterpart of `URLSessionConfiguration`, as a value: a session copies it when created.
public struct SessionConfiguration: Sendable {
    /// Fields added to every request unless the request sets a field of the same name.
    /// Defaults: `User-Agent: Ferry/0.1` and `Accept: */*`.
    public var httpAdditionalHeaders: HTTPFields
    /// Longest wait for a TCP connection (all Happy Eyeballs attempts together).
    public var timeoutIntervalForConnect: Duration
    /// Longest time without a byte moving in either direction once connected (URLSession's
    /// request timeout).
    public var timeoutIntervalForRequest: Duration
    /// Longest time for a whole exchange, from start to the last body byte.
    public var timeoutIntervalForResource: Duration
    /// Most simultaneous connections to one scheme, host and port.
    public var httpMaximumConnectionsPerHost: Int
    /// How long an idle keep-alive connection stays in the pool.
    public var connectionIdleTimeout: Duration
    /// Ask for gzip and deflate (`Accept-Encoding`) and decode bodies. When `false`, bodies are
    /// delivered exactly as received.
    public var automaticallyDecodesContent: Bool
    /// Bounds on decoded size and expansion ratio.
    public var decodingLimits: DecodingLimits
    /// Bounds on the response head and chunked framing.
    public var parserLimits: ParserLimits
    /// The largest body a request may receive (after decoding); `nil` for no limit.
    public var maximumResponseBodySize: Int64?
    /// Event-loop threads for this session's engine; `nil` picks one per core, at most 4.
    public var eventLoopCount: Int?

    /// Creates the default configuration.
    public init() {
        httpAdditionalHeaders = [.userAgent: "Ferry/0.1", .accept: "*/*"]
        timeoutIntervalForConnect = .seconds(60)
        timeoutIntervalForRequest = .seconds(60)
        timeoutIntervalForResource = .seconds(7 * 24 * 3600)
        httpMaximumConnectionsPerHost = 6
        connectionIdleTimeout = .seconds(60)
        automaticallyDecodesContent = true
        decodingLimits = .default
        parserLimits = .default
        maximumResponseBodySize = nil
        eventLoopCount = nil
    }

    /// The default configuration.
    public static var `default`: SessionConfiguration { SessionConfiguration() }
}
