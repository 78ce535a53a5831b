import FerryEngine
import FerryIO
import FerryBase
import FerryWire
import FoundationEssentials
import HTTPTypes

/// Turns a public ``NetworkRequest`` and the session's configuration into the engine's
/// `ExchangeRequest`: URL to pool key, target and Host; session headers merged; the request's
/// timeouts and limits resolved. (How connections are opened is the engine's, given once:
/// `ConnectSettings`.)
enum RequestPreparation {
    /// The `Accept-Encoding` Ferry sends when it decodes content itself.
    static let acceptEncoding = "gzip, deflate"

    static func exchangeRequest(
        for request: NetworkRequest, configuration: SessionConfiguration, proxies: ProxyRoutes
    ) throws(NetworkError) -> ExchangeRequest {
        let url = request.url
        guard let scheme = url.scheme?.lowercased() else {
            throw NetworkError(SessionFailure.badURL("URL has no scheme: \(url.absoluteString)"), url: url)
        }
        guard scheme == "http" || scheme == "https" else {
            throw NetworkError(SessionFailure.unsupportedScheme(scheme), url: url)
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw NetworkError(SessionFailure.badURL("URL has no host: \(url.absoluteString)"), url: url)
        }
        if let refusal = configuration.transportSecurity.refusal(of: url, isRedirect: false) {
            throw NetworkError(SessionFailure.transportSecurity(refusal), url: url)
        }
        let bareHost = String(HostName.unbracketed(host))
        // A decoded host is written into the absolute-form target or CONNECT's authority that
        // a proxy reads: `a%40b` would become `a@b`, naming another host than the one the
        // caller's checks and no_proxy saw. Only names and IP literals go.
        guard isHostNameOrAddress(bareHost) else {
            throw NetworkError(SessionFailure.badURL("URL host \"\(bareHost.prefix(80))\" is not a host name or an IP address"), url: url)
        }
        let namedPort = url.port
        let port = namedPort ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else {
            throw NetworkError(SessionFailure.badURL("port \(port) is out of range"), url: url)
        }
        var head = RequestHead(
            method: request.method,
            target: target(of: url),
            // RFC 9110 §7.2: the authority without userinfo; the port only when the URL names one.
            host: HostName.authority(bareHost, port: namedPort),
            headerFields: headerFields(for: request, configuration: configuration),
            framing: .none)
        var key = PoolKey(scheme: scheme, host: bareHost, port: port)
        if !proxies.isDirect {
            let proxy: ProxyServer?
            do throws(ProxyURLError) {
                proxy = try proxies.proxy(scheme: scheme, host: bareHost)
            } catch {
                throw NetworkError(SessionFailure.unusableProxy(error), url: url)
            }
            if let proxy { try route(&head, key: &key, through: proxy, remembered: proxies.rememberedAuthorization(for: proxy), url: url) }
        }
        let body: ExchangeBody
        switch request.body?.storage {
        case nil: body = .none
        case .bytes(let bytes)?: body = .bytes(bytes)
        case .file(let path)?: body = .file(path: path)
        case .stream(let chunks, let length, _)?: body = .stream(AsyncChunkSource(chunks), length: length)
        case .segments(let segments, let length)?: body = .segments(segments, length: length)
        }
        var exchange = ExchangeRequest(
            key: key,
            head: head,
            body: body,
            decodesContent: configuration.automaticallyDecodesContent,
            decodingLimits: configuration.decodingLimits,
            parserLimits: configuration.parserLimits,
            maximumBodySize: request.maximumResponseBodySize ?? configuration.maximumResponseBodySize,
            requestTimeout: request.timeoutInterval ?? configuration.timeoutIntervalForRequest,
            totalTimeout: configuration.timeoutIntervalForResource)
        exchange.expectsContinueAbove = configuration.expectContinueThreshold
        exchange.continueTimeout = configuration.expectContinueTimeout
        return exchange
    }

    /// Sends the request through `proxy`: an http request in absolute form to the proxy (one
    /// pool for every origin behind it), an https request through a tunnel to its origin. The
    /// proxy's credential goes with the request (forwarding) or with CONNECT (a tunnel), never
    /// to the origin; the obsolete `Proxy-Connection` is never sent.
    private static func route(_ head: inout RequestHead, key: inout PoolKey, through proxy: ProxyServer, remembered: String?,
                              url: URL) throws(NetworkError) {
        head.headerFields[proxyConnection] = nil
        var authorization = head.headerFields[.proxyAuthorization]
        if authorization == nil {
            do throws(AuthenticationFailure) {
                authorization = try upFrontAuthorization(for: proxy, remembered: remembered)
            } catch {
                throw NetworkError(SessionFailure.invalidCredential(error, forProxy: true), url: url)
            }
        }
        if key.scheme == "http" {
            head.target = absoluteFormTarget(of: url)
            head.headerFields[.proxyAuthorization] = authorization
            key = PoolKey(scheme: "http", host: proxy.host, port: proxy.port, route: .forwardingProxy)
        } else {
            head.headerFields[.proxyAuthorization] = nil
            var connect = HTTPFields()
            connect[.proxyAuthorization] = authorization
            connect[.userAgent] = head.headerFields[.userAgent]
            key.route = .tunnel(TunnelProxy(host: proxy.host, port: proxy.port, connectFields: connect))
        }
    }

    /// The `Proxy-Authorization` the session sends through `proxy` for a request that sets
    /// none: Basic from the proxy URL's user and password, else the Basic answer the proxy
    /// accepted last (`remembered`), else none.
    /// - Throws: ``AuthenticationFailure`` when the URL's user or password cannot be sent.
    static func upFrontAuthorization(for proxy: ProxyServer, remembered: String?) throws(AuthenticationFailure) -> String? {
        guard let user = proxy.user else { return remembered }
        return try BasicAuthentication.authorization(user: user, password: proxy.password ?? "")
    }

    private static let proxyConnection = HTTPField.Name("Proxy-Connection")!

    /// Letters, digits, `-`, `.` and `_` (a DNS name, or an IPv4 literal), or an IPv6 literal.
    static func isHostNameOrAddress(_ host: String) -> Bool {
        let isName = host.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"): true
            default: false
            }
        }
        return isName || (host.contains(":") && SocketAddress(ipAddress: host, port: 0) != nil)
    }

    /// Absolute-form target (RFC 9112 §3.2.2), what a forwarding proxy is sent: the scheme,
    /// the authority as `Host` writes it, then the origin-form target.
    static func absoluteFormTarget(of url: URL) -> String {
        let host = String(HostName.unbracketed(url.host(percentEncoded: false) ?? ""))
        return (url.scheme?.lowercased() ?? "http") + "://" + HostName.authority(host, port: url.port) + target(of: url)
    }

    /// Origin-form target (RFC 9112 §3.2.1): the absolute path, never empty, plus the query.
    static func target(of url: URL) -> String {
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        return target
    }

    /// Session fields first, replaced by request fields of the same name; `Accept-Encoding`
    /// added when the session decodes and the request did not ask for something itself.
    static func headerFields(for request: NetworkRequest, configuration: SessionConfiguration) -> HTTPFields {
        let additional = configuration.httpAdditionalHeaders
        let own = request.headerFields
        let addsEncoding = configuration.automaticallyDecodesContent && !own.contains(.acceptEncoding)
            && !additional.contains(.acceptEncoding)
        if additional.isEmpty && !addsEncoding { return own }
        var fields = HTTPFields()
        fields.reserveCapacity(additional.count + own.count + 1)
        for field in additional where !own.contains(field.name) {
            fields.append(field)
        }
        if addsEncoding { fields.append(acceptEncodingField) }
        fields.append(contentsOf: own)
        return fields
    }

    /// ``acceptEncoding`` as a field, built once.
    private static let acceptEncodingField = HTTPField(name: .acceptEncoding, value: acceptEncoding)
}
