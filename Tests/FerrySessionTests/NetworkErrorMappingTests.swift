import FerryEngine
import FerryIO
import FerryTLS
@testable import FerrySession
import FerryWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One engine failure and what the public error must say about it.
struct MappingRow: Sendable, CustomTestStringConvertible {
    let error: EngineError
    let code: NetworkError.Code
    /// The underlying error's type name, or nil when there is no typed cause.
    let underlying: String?
    /// Text the reason must contain: the host, the errno text, the parse kind…
    let fact: String

    init(_ kind: EngineError.Kind, _ code: NetworkError.Code, _ underlying: String?, _ fact: String) {
        self.error = EngineError(kind)
        self.code = code
        self.underlying = underlying
        self.fact = fact
    }

    var testDescription: String { "\(kindName(error.kind)) → \(code)" }

    /// Every kind once, plus the variants that pick a different code.
    static let all: [MappingRow] = [
        MappingRow(.cancelled, .cancelled, nil, "Cancelled"),
        MappingRow(
            .invalidRequest(RequestEncodingError(.invalidFieldValue, detail: "X-Evil")),
            .invalidRequest, "RequestEncodingError", "header value with CR, LF, NUL or another control byte: X-Evil"
        ),
        MappingRow(
            .hostNotFound(DNSError(host: "nowhere.invalid", code: EAI_NONAME)),
            .cannotFindHost, "DNSError", "nowhere.invalid"
        ),
        MappingRow(
            .hostNotFound(DNSError(host: "flaky.example", code: EAI_AGAIN)),
            .dnsLookupFailed, "DNSError", "flaky.example"
        ),
        MappingRow(
            .connectFailed(host: "127.0.0.1", port: 9, SystemError(errno: ECONNREFUSED, syscall: "connect")),
            .cannotConnectToHost, "SystemError", "Failed to connect to 127.0.0.1 port 9: Connection refused"
        ),
        MappingRow(.connectTimedOut(host: "10.255.255.1", port: 81), .timedOut, nil, "10.255.255.1 port 81"),
        MappingRow(.requestTimedOut(.receivingBody), .timedOut, nil, "while receiving the response body"),
        MappingRow(.totalTimedOut(.awaitingResponse), .timedOut, nil, "while waiting for the response"),
        MappingRow(
            .sendFailed(SystemError(errno: EPIPE, syscall: "sendmsg")),
            .networkConnectionLost, "SystemError", "Broken pipe"
        ),
        MappingRow(
            .receiveFailed(SystemError(errno: ECONNRESET, syscall: "read"), .receivingHead),
            .networkConnectionLost, "SystemError", "Connection reset by peer"
        ),
        MappingRow(.emptyReply, .zeroByteResource, nil, "Empty reply from server"),
        MappingRow(
            .parse(HTTPParseError(.invalidChunkSize, offset: 57)),
            .cannotParseResponse, "HTTPParseError", "invalid chunk size at byte 57"
        ),
        MappingRow(.partialBody(received: 10, expected: 100), .networkConnectionLost, nil, "90 bytes remaining"),
        MappingRow(.partialBody(received: 10, expected: nil), .networkConnectionLost, nil, "10 bytes read"),
        MappingRow(
            .decoding(ContentDecodingError(.corruptData, encoding: "gzip", detail: "incorrect header check")),
            .cannotDecodeContentData, "ContentDecodingError", "corrupt compressed data in gzip: incorrect header check"
        ),
        MappingRow(
            .decoding(ContentDecodingError(.expansionRatioExceeded, encoding: "gzip")),
            .cannotDecodeContentData, "ContentDecodingError", "expands too much"
        ),
        MappingRow(.bodyTooLarge(limit: 1_048_576), .dataLengthExceedsMaximum, nil, "1048576 bytes"),
        MappingRow(
            .fileReadFailed(path: "/srv/upload.bin", SystemError(errno: ENOENT, syscall: "open")),
            .cannotOpenFile, "SystemError", "/srv/upload.bin: No such file or directory"
        ),
        MappingRow(
            .fileWriteFailed(path: "/srv/download.bin", SystemError(errno: EACCES, syscall: "open")),
            .cannotCreateFile, "SystemError", "/srv/download.bin: Permission denied"
        ),
        MappingRow(
            .fileWriteFailed(path: "/srv/download.bin", SystemError(errno: ENOSPC, syscall: "write")),
            .cannotWriteToFile, "SystemError", "No space left on device"
        ),
        MappingRow(.requestBodyFailed("stream ended after 5 of 10 bytes"), .requestBodyFailed, nil, "5 of 10 bytes"),
        MappingRow(
            .loopThreadFailed(SystemError(errno: EAGAIN, syscall: "pthread_create")),
            .cannotConnectToHost, "SystemError", "start a network thread: Resource temporarily unavailable"
        ),
        MappingRow(.internalInconsistency("pool handed out an unknown connection"), .internalInconsistency, nil, "unknown connection"),
        MappingRow(
            .tlsHandshakeFailed(host: "localhost", port: 8443, TLSError(.unsupportedVersion, detail: "SSL routines: tlsv1 alert protocol version")),
            .secureConnectionFailed, "TLSError", "TLS connect error with localhost port 8443: no TLS version in common"
        ),
        MappingRow(
            .tlsHandshakeFailed(host: "localhost", port: 8443, TLSError(.clientCertificateRejected, detail: "tlsv1 alert unknown ca")),
            .clientCertificateRejected, "TLSError", "rejected the client certificate"
        ),
        MappingRow(
            .tlsFailed(host: "localhost", port: 8443, TLSError(.clientCertificateRequired), .awaitingResponse),
            .clientCertificateRequired, "TLSError", "TLS error with localhost port 8443: the server requires a client certificate while waiting for the response"
        ),
        MappingRow(
            .tlsFailed(host: "localhost", port: 8443, TLSError(.recordLayerFailed, detail: "bad record mac"), .receivingBody),
            .secureConnectionFailed, "TLSError", "bad record mac"
        ),
        MappingRow(
            .serverTrustRejected(.untrusted(TrustFailure(verifyCode: 10, depth: 0, subject: "CN=localhost"), host: "localhost")),
            .serverCertificateHasBadDate, "ServerTrustError", "Server certificate for localhost is not trusted: certificate has expired"
        ),
        MappingRow(
            .serverTrustRejected(.untrusted(TrustFailure(verifyCode: 9, depth: 0), host: "localhost")),
            .serverCertificateNotYetValid, "ServerTrustError", "not yet valid"
        ),
        MappingRow(
            .serverTrustRejected(.untrusted(TrustFailure(verifyCode: 20, depth: 1), host: "localhost")),
            .serverCertificateHasUnknownRoot, "ServerTrustError", "unable to get local issuer certificate"
        ),
        MappingRow(
            .serverTrustRejected(.untrusted(TrustFailure(verifyCode: 18, depth: 0), host: "localhost")),
            .serverCertificateHasUnknownRoot, "ServerTrustError", "self-signed"
        ),
        MappingRow(
            .serverTrustRejected(.untrusted(TrustFailure(verifyCode: 62, depth: 0), host: "wrong.example")),
            .serverCertificateUntrusted, "ServerTrustError", "hostname mismatch"
        ),
        MappingRow(
            .serverTrustRejected(ServerTrustError(.pinningMismatch, host: "localhost", detail: "no pinned key in the chain")),
            .pinningMismatch, "ServerTrustError", "Pinning mismatch for localhost: no pinned key in the chain"
        ),
        MappingRow(
            .serverTrustRejected(ServerTrustError(.refused, host: "unlisted.example", detail: "no evaluator for this host")),
            .serverCertificateUntrusted, "ServerTrustError", "unlisted.example"
        ),
        MappingRow(
            .serverTrustRejected(ServerTrustError(.cancelled, host: "localhost", detail: "the delegate cancelled")),
            .cancelled, "ServerTrustError", "Server trust for localhost refused (server trust challenge cancelled)"
        ),
        MappingRow(
            .proxyFailed(ProxyFailure(proxyHost: "proxy.invalid", proxyPort: 3128,
                                      .hostNotFound(DNSError(host: "proxy.invalid", code: EAI_NONAME)))),
            .cannotFindProxyHost, "DNSError", "Could not resolve proxy: proxy.invalid"
        ),
        MappingRow(
            .proxyFailed(ProxyFailure(proxyHost: "127.0.0.1", proxyPort: 3128,
                                      .connectFailed(SystemError(errno: ECONNREFUSED, syscall: "connect")))),
            .cannotConnectToProxy, "SystemError", "Failed to connect to proxy 127.0.0.1 port 3128: Connection refused"
        ),
        MappingRow(.proxyFailed(ProxyFailure(proxyHost: "proxy", proxyPort: 3128, .timedOut)), .timedOut, nil,
                   "Connection to proxy proxy port 3128 timed out"),
        MappingRow(
            .proxyFailed(ProxyFailure(proxyHost: "proxy", proxyPort: 3128,
                                      .refused(ResponseHead(version: .http1_1, status: .forbidden, headerFields: [:], framing: .none,
                                                             keepAlive: false)))),
            .proxyTunnelFailed, nil, "CONNECT tunnel failed, response 403 from proxy proxy port 3128"
        ),
        MappingRow(.proxyFailed(ProxyFailure(proxyHost: "proxy", proxyPort: 3128, .closed)), .proxyTunnelFailed, nil,
                   "Proxy CONNECT aborted: proxy proxy port 3128 closed the connection"),
    ]
}

/// A name per kind. The switch has no `default:`, so a new kind fails to compile here until
/// it is named, and ``NetworkErrorMappingTests/everyKindHasARow()`` then asks for a row.
private func kindName(_ kind: EngineError.Kind) -> String {
    switch kind {
    case .cancelled: "cancelled"
    case .invalidRequest: "invalidRequest"
    case .hostNotFound: "hostNotFound"
    case .connectFailed: "connectFailed"
    case .connectTimedOut: "connectTimedOut"
    case .requestTimedOut: "requestTimedOut"
    case .totalTimedOut: "totalTimedOut"
    case .sendFailed: "sendFailed"
    case .receiveFailed: "receiveFailed"
    case .emptyReply: "emptyReply"
    case .parse: "parse"
    case .partialBody: "partialBody"
    case .decoding: "decoding"
    case .bodyTooLarge: "bodyTooLarge"
    case .fileReadFailed: "fileReadFailed"
    case .fileWriteFailed: "fileWriteFailed"
    case .requestBodyFailed: "requestBodyFailed"
    case .loopThreadFailed: "loopThreadFailed"
    case .internalInconsistency: "internalInconsistency"
    case .tlsHandshakeFailed: "tlsHandshakeFailed"
    case .serverTrustRejected: "serverTrustRejected"
    case .tlsFailed: "tlsFailed"
    case .proxyFailed: "proxyFailed"
    }
}

@Suite("EngineError → NetworkError")
struct NetworkErrorMappingTests {
    static let url = URL(string: "https://example.com/data?q=1")!

    @Test("each engine failure maps to its code, typed cause and reason", arguments: MappingRow.all)
    func mapping(_ row: MappingRow) {
        let error = NetworkError(row.error, url: Self.url)
        #expect(error.code == row.code)
        #expect(error.underlyingError.map { String(describing: type(of: $0)) } == row.underlying)
        #expect(error.reason.contains(row.fact), "reason: \(error.reason)")
        #expect(error.reason.first?.isUppercase == true, "a sentence: \(error.reason)")
        #expect(error.failingURL == Self.url)
        #expect(error.response == nil && error.responseData == nil)
        #expect(error.description.contains("\(row.code.rawValue)"))
    }

    @Test("every EngineError kind has a row in the table")
    func everyKindHasARow() {
        let covered = Set(MappingRow.all.map { kindName($0.error.kind) })
        #expect(covered.count == 23, "rows cover: \(covered.sorted())")
    }
}

/// The session layer's own failures, beside the engine's, in the same mapping file.
@Suite("SessionFailure → NetworkError")
struct SessionFailureMappingTests {
    static let url = URL(string: "https://example.com/data")!

    static let rows: [(SessionFailure, NetworkError.Code, String?, String)] = [
        (.cancelled, .cancelled, nil, "cancelled"),
        (.cancelledWhileReadingBody, .cancelled, nil, "reading the body"),
        (.badURL("URL has no host: http:///x"), .badURL, nil, "no host"),
        (.unsupportedScheme("gopher"), .unsupportedURL, nil, "\"gopher\""),
        (.cannotCreateFile(path: "/nope/file", SystemError(errno: ENOENT, syscall: "open")), .cannotCreateFile, "SystemError",
         "/nope/file: No such file or directory"),
        (.bodyLargerThan(1000), .dataLengthExceedsMaximum, nil, "1000 bytes"),
        (.sessionInvalidated, .sessionInvalidated, nil, "invalidated"),
        (.engineUnavailable(SystemError(errno: EMFILE, syscall: "epoll_create1")), .sessionInvalidated, "SystemError",
         "Too many open files"),
        (.tlsUnavailable(TLSError(.handshakeFailed, detail: "bad cipher list")), .secureConnectionFailed, "TLSError", "bad cipher list"),
        (.invalidHeaderName("Bad Name"), .invalidRequest, "RequestEncodingError", "invalid header name \"Bad Name\""),
        (.invalidHeaderValue(name: "X-Test"), .invalidRequest, "RequestEncodingError", "header X-Test has a value with CR, LF"),
        (.transportSecurity("The session's transport security policy refuses plain http (http://a/)"),
         .appTransportSecurityRequiresSecureConnection, nil, "refuses plain http"),
        (.unusableProxy(ProxyURLError(host: "socks.example", reason: .unsupportedScheme("socks5"))), .unsupportedURL, nil,
         "Proxy socks.example uses socks5://"),
    ]

    @Test("each session failure maps to its code, cause and sentence", arguments: 0..<rows.count)
    func mapping(_ index: Int) {
        let (failure, code, underlying, fact) = Self.rows[index]
        let error = NetworkError(failure, url: Self.url)
        #expect(error.code == code)
        #expect(error.underlyingError.map { String(describing: type(of: $0)) } == underlying)
        #expect(error.reason.contains(fact), "reason: \(error.reason)")
        if case .invalidHeaderName = failure {} else if case .invalidHeaderValue = failure {} else {
            // Header refusals read after a tool's own words (`ferry: option -H: header …`).
            #expect(error.reason.first?.isUppercase == true, "a sentence: \(error.reason)")
        }
        #expect(error.failingURL == Self.url)
    }
}
