import FerryEngine
import FerryTLS
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
    /// Event loops for this session's engine (a thread each, started with its first request);
    /// `nil` picks one per core, at most 4. Requests to one host share one loop.
    public var eventLoopCount: Int?
    /// Addresses to connect to instead of resolving a host, by lower-case host name: curl's
    /// `--resolve`. The URL's host still names the server (SNI, certificate checks, `Host`),
    /// so `["example.com": "127.0.0.1"]` tests a server's certificate before DNS points at it.
    public var resolvedAddresses: [String: String]
    /// How HTTPS connections speak TLS: versions, trust roots (curl's `--cacert`), a client
    /// identity, session resumption.
    public var tlsConfiguration: TLSConfiguration
    /// Judges the certificate chain of every new HTTPS connection, after the handshake and
    /// before any request byte; `nil` applies the default rules (``DefaultTrustEvaluator``:
    /// a valid chain to ``tlsConfiguration``'s trust store, for the URL's host). Their verdict
    /// on a host and port's chain stands while every certificate of its path is valid: a
    /// connection that resumes a TLS session of that chain, or whose server sends that very
    /// chain again (byte for byte, and proves again that it holds the leaf's key), is not
    /// verified again. An evaluator set here is asked on every new connection.
    public var serverTrustEvaluator: (any ServerTrustEvaluating)?
    /// Evaluators for particular hosts (lower-case host names or address literals, without
    /// brackets), used instead of ``serverTrustEvaluator`` for those hosts.
    public var serverTrustEvaluatorsByHost: [String: any ServerTrustEvaluating]
    /// When `true`, a host missing from ``serverTrustEvaluatorsByHost`` is refused (fail
    /// closed) instead of falling back to ``serverTrustEvaluator``: for apps that must pin
    /// every host they talk to.
    public var requiresServerTrustEvaluatorForEveryHost: Bool

    /// Ferry's name and version as a `User-Agent` product token.
    public static let ferryProduct = "Ferry/0.1"

    /// Creates the default configuration.
    public init() {
        httpAdditionalHeaders = [.userAgent: Self.ferryProduct, .accept: "*/*"]
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
        resolvedAddresses = [:]
        tlsConfiguration = TLSConfiguration()
        serverTrustEvaluator = nil
        serverTrustEvaluatorsByHost = [:]
        requiresServerTrustEvaluatorForEveryHost = false
    }

    /// What the session refuses so that nothing goes out in clear text or over weak TLS (App
    /// Transport Security's role): ``TransportSecurityPolicy/off`` by default.
    public var transportSecurity: TransportSecurityPolicy = .off

    /// Which HTTP proxy requests go through: the environment's (`http_proxy`, `https_proxy`,
    /// `all_proxy`, `no_proxy`, as curl reads them) by default; ``ProxyConfiguration/none``
    /// for none, or ``ProxyConfiguration/http(_:bypass:)`` for one of the caller's.
    public var proxy: ProxyConfiguration = .environment

    /// Request bodies longer than this, or of unknown length (a stream without a length), are
    /// announced with `Expect: 100-continue` and sent only once the server answers
    /// `100 Continue`, so a server that refuses the request (401, 413) costs no upload; a server
    /// that says nothing gets the body after ``expectContinueTimeout``. 1 MiB by default
    /// (curl's rule); nil never asks.
    public var expectContinueThreshold: Int64? = 1 << 20
    /// The longest wait for `100 Continue` before the body is sent anyway (curl's
    /// `--expect100-timeout`); 1 second by default.
    public var expectContinueTimeout: Duration = .seconds(1)

    /// The most response bytes per second all the session's tasks receive together (curl's
    /// `CURLOPT_MAX_RECV_SPEED_LARGE`, for the whole session); nil, the default, or a value
    /// below 1: no cap. Counted as bytes arrive (heads and bodies, before decoding), averaged
    /// by a token bucket that lets a tenth of a second's worth through at once after a pause
    /// and then a fiftieth of a second's worth at a time; at most 1 GB/s.
    /// A task may have a lower cap of its own (``SessionTask/maximumDownloadBytesPerSecond``).
    public var maximumDownloadBytesPerSecond: Int64?
    /// The most request-body bytes per second all the session's tasks send together (curl's
    /// `CURLOPT_MAX_SEND_SPEED_LARGE`, for the whole session); nil, the default, or a value
    /// below 1: no cap. A task may have a lower cap of its own
    /// (``SessionTask/maximumUploadBytesPerSecond``).
    public var maximumUploadBytesPerSecond: Int64?

    /// How many redirects (301, 302, 303, 307, 308 with a Location) a task follows before it
    /// fails with ``NetworkError/Code/httpTooManyRedirects``; 16 by default. 0 follows none:
    /// the 3xx response is delivered as any other.
    public var httpMaximumRedirects = 16
    /// Whether a redirect from https to plain http is followed (it is by default, as URLSession
    /// and curl; the task's metrics show the hop). False fails such a task with
    /// ``NetworkError/Code/appTransportSecurityRequiresSecureConnection`` instead.
    public var allowsInsecureRedirects = true

    /// Whether a redirect to another origin keeps the request's `Authorization`, `Cookie` and
    /// `Proxy-Authorization` fields and its ``NetworkRequest/credential`` (curl's
    /// `--location-trusted`). False by default: credentials stay with the origin they were
    /// given to, and the storage's cookies are chosen for each hop's URL either way.
    public var redirectsKeepCredentials = false

    /// Where cookies are found for requests and kept from responses (URLSession's
    /// `httpCookieStorage`): ``CookieStorage/shared`` by default, a storage of the session's
    /// own for ``ephemeral``; nil handles no cookies.
    public var httpCookieStorage: CookieStorage? = .shared
    /// Whether requests carry cookies from ``httpCookieStorage`` and responses' `Set-Cookie`
    /// fields are kept there (true by default). A request can opt out:
    /// ``NetworkRequest/httpShouldHandleCookies``.
    public var httpShouldSetCookies = true
    /// Which cookies of responses are kept, on top of the storage's own
    /// ``CookieStorage/cookieAcceptPolicy``: both must accept. URLSession's default,
    /// ``CookieAcceptPolicy/onlyFromMainDocumentDomain``, which keeps every cookie of a request
    /// without a ``NetworkRequest/mainDocumentURL``.
    public var httpCookieAcceptPolicy: CookieAcceptPolicy = .onlyFromMainDocumentDomain
    /// Where credentials for HTTP authentication are found (the default credential of a
    /// protection space) and kept once they worked (unless their persistence is `.none`):
    /// ``CredentialStorage/shared`` by default, memory of the session's own for ``ephemeral``;
    /// nil uses none.
    public var urlCredentialStorage: CredentialStorage? = .shared
    /// The HTTP authentication schemes the session answers a 401 with: the strongest the
    /// server offers among these (Digest, then Basic, by default: curl's `--anyauth`).
    public var httpAuthenticationMethods: Set<AuthenticationMethod> = [.httpDigest, .httpBasic]

    /// Whether the session may keep state beyond its own life (URLSession's ephemeral
    /// configuration says no): an ephemeral configuration has a cookie storage and a
    /// memory-only credential storage of its own, so nothing reaches the disk or another
    /// session. Connections, TLS sessions and their verdicts always live in the session's
    /// memory and die with it.
    public private(set) var isEphemeral = false

    /// The default configuration.
    public static var `default`: SessionConfiguration { SessionConfiguration() }

    /// A configuration that keeps no credential, cookie or other state on disk: everything
    /// lives and dies with the session (URLSession's `ephemeral`).
    public static var ephemeral: SessionConfiguration {
        var configuration = SessionConfiguration()
        configuration.isEphemeral = true
        configuration.httpCookieStorage = CookieStorage()
        configuration.urlCredentialStorage = CredentialStorage(fileURL: nil)
        return configuration
    }
}
