import FerryTLS
import HTTPTypes

/// Which connections may serve a request: same scheme, host and port, the same way there
/// (direct, or through which proxy), and for HTTPS the same TLS context (so two TLS
/// configurations, or two sessions' trust evaluators, never share a connection). Two keys
/// never share a connection.
package struct PoolKey: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https`.
    package let scheme: String
    /// Host name or address literal, lower-cased, without brackets: the origin's, or for
    /// ``PoolRoute/forwardingProxy`` the proxy's.
    package let host: String
    /// TCP port, the origin's or (forwarding) the proxy's.
    package let port: Int
    /// The TLS context for `https`; compared by identity.
    package var tls: TLSClientContext? {
        didSet { identity = Self.identity(affinity: loopAffinity, tls: tls, route: route) }
    }
    /// How connections reach ``host``.
    package var route: PoolRoute {
        didSet {
            loopAffinity = Self.affinity(scheme: scheme, host: host, port: port, route: route)
            identity = Self.identity(affinity: loopAffinity, tls: tls, route: route)
        }
    }
    /// What picks the loop that runs this key's exchanges (``HTTPClientEngine``): the origin
    /// and the way there, without what only keeps connections apart (the TLS context, a
    /// tunnel's CONNECT fields). One origin by one route then always runs on one loop, whatever
    /// fields or proxy credentials a request carries, so the loop executor named for a URL
    /// (`Session.taskExecutor(for:)`) is the loop of every exchange for it.
    package private(set) var loopAffinity: Int
    /// Everything ``==`` compares, hashed once: a key is made once per request and then looked
    /// up in the pool's tables several times (hashing its strings each time cost more than the
    /// lookups themselves).
    private var identity: Int

    /// Creates a key.
    package init(scheme: String, host: String, port: Int, tls: TLSClientContext? = nil, route: PoolRoute = .direct) {
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
        self.tls = tls
        self.route = route
        loopAffinity = Self.affinity(scheme: scheme, host: self.host, port: port, route: route)
        identity = Self.identity(affinity: loopAffinity, tls: tls, route: route)
    }

    /// Same scheme, host, port, route and TLS context object.
    package static func == (lhs: PoolKey, rhs: PoolKey) -> Bool {
        lhs.identity == rhs.identity && lhs.scheme == rhs.scheme && lhs.host == rhs.host && lhs.port == rhs.port
            && lhs.tls === rhs.tls && lhs.route == rhs.route
    }

    /// Hashes what ``==`` compares (computed when the key was made).
    package func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }

    private static func affinity(scheme: String, host: String, port: Int, route: PoolRoute) -> Int {
        var hasher = Hasher()
        hasher.combine(scheme)
        hasher.combine(host)
        hasher.combine(port)
        switch route {
        case .direct: break
        case .forwardingProxy: hasher.combine(1)
        case .tunnel(let proxy):
            hasher.combine(proxy.host)
            hasher.combine(proxy.port)
        }
        return hasher.finalize()
    }

    /// The affinity (scheme, host, port and the route's proxy) and what it leaves out: the TLS
    /// context and a tunnel's CONNECT fields.
    private static func identity(affinity: Int, tls: TLSClientContext?, route: PoolRoute) -> Int {
        var hasher = Hasher()
        hasher.combine(affinity)
        hasher.combine(tls.map(ObjectIdentifier.init))
        if case .tunnel(let proxy) = route { hasher.combine(proxy.connectFields) }
        return hasher.finalize()
    }

    /// Whether connections go through a proxy.
    package var isProxied: Bool {
        if case .direct = route { return false }
        return true
    }

    /// Where this key's TCP connections go: the proxy of a tunnel, else the key's host and port.
    var connectionEndpoint: (host: String, port: Int) {
        if case .tunnel(let proxy) = route { return (proxy.host, proxy.port) }
        return (host, port)
    }

    /// `https://host:port`, and the proxy when there is one.
    package var description: String {
        switch route {
        case .direct: "\(scheme)://\(host):\(port)"
        case .forwardingProxy: "http proxy \(host):\(port)"
        case .tunnel(let proxy): "\(scheme)://\(host):\(port) through proxy \(proxy.host):\(proxy.port)"
        }
    }
}

/// How a pool key's connections reach its host.
package enum PoolRoute: Hashable, Sendable {
    /// A TCP connection to the key's host and port.
    case direct
    /// The key's host and port are an HTTP proxy, which is sent every request in absolute form
    /// (RFC 9112 §3.2.2) whatever its origin: one pool for all plain-HTTP origins behind it.
    case forwardingProxy
    /// A connection to this proxy, which is asked to open a tunnel to the key's host and port
    /// (CONNECT, RFC 9110 §9.3.6); TLS to the origin then runs inside it. A tunnel serves its
    /// origin only.
    case tunnel(TunnelProxy)
}

/// The proxy a CONNECT tunnel goes through, and what the CONNECT request carries. A class,
/// compared by value: a pool key is copied on every request, and a reference keeps a direct
/// key's route one word that needs no retain.
package final class TunnelProxy: Hashable, Sendable {
    /// The proxy's host name or address literal, lower-cased, without brackets.
    package let host: String
    /// The proxy's port.
    package let port: Int
    /// Fields sent with CONNECT besides `Host` (`Proxy-Authorization`, `User-Agent`). Part of
    /// the key: a tunnel opened with one proxy credential never serves a request made with
    /// another.
    package let connectFields: HTTPFields

    /// Creates a proxy description.
    package init(host: String, port: Int, connectFields: HTTPFields = HTTPFields()) {
        self.host = host.lowercased()
        self.port = port
        self.connectFields = connectFields
    }

    /// Same host, port and fields.
    package static func == (lhs: TunnelProxy, rhs: TunnelProxy) -> Bool {
        lhs === rhs || (lhs.host == rhs.host && lhs.port == rhs.port && lhs.connectFields == rhs.connectFields)
    }

    /// Hashes what ``==`` compares.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(connectFields)
    }
}
