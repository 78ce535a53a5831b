import FerryEngine
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
        for request: NetworkRequest, configuration: SessionConfiguration
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
        let bareHost = String(HostName.unbracketed(host))
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else {
            throw NetworkError(SessionFailure.badURL("port \(port) is out of range"), url: url)
        }
        let head = RequestHead(
            method: request.method,
            target: target(of: url),
            host: hostField(host: bareHost, port: url.port),
            headerFields: headerFields(for: request, configuration: configuration),
            framing: .none)
        let body: ExchangeBody
        switch request.body?.storage {
        case nil: body = .none
        case .bytes(let bytes)?: body = .bytes(bytes)
        case .file(let path)?: body = .file(path: path)
        case .stream(let chunks, let length, _)?: body = .stream(AsyncChunkSource(chunks), length: length)
        case .segments(let segments, let length)?: body = .segments(segments, length: length)
        }
        var exchange = ExchangeRequest(
            key: PoolKey(scheme: scheme, host: bareHost, port: port),
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

    /// Origin-form target (RFC 9112 §3.2.1): the absolute path, never empty, plus the query.
    static func target(of url: URL) -> String {
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        return target
    }

    /// RFC 9110 §7.2: the Host value is the authority without userinfo; IPv6 literals keep
    /// their brackets; the port is included only when the URL names one.
    static func hostField(host: String, port: Int?) -> String {
        let literal = host.contains(":") ? "[\(host)]" : host
        guard let port else { return literal }
        return "\(literal):\(port)"
    }

    /// Session fields first, replaced by request fields of the same name; `Accept-Encoding`
    /// added when the session decodes and the request did not ask for something itself.
    static func headerFields(for request: NetworkRequest, configuration: SessionConfiguration) -> HTTPFields {
        var fields = HTTPFields()
        for field in configuration.httpAdditionalHeaders where request.headerFields[field.name] == nil {
            fields.append(field)
        }
        if configuration.automaticallyDecodesContent, request.headerFields[.acceptEncoding] == nil,
           configuration.httpAdditionalHeaders[.acceptEncoding] == nil {
            fields[.acceptEncoding] = acceptEncoding
        }
        fields.append(contentsOf: request.headerFields)
        return fields
    }
}
