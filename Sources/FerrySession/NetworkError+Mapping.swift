import FerryEngine
import FerryIO
import FerryTLS
import FerryWire
import FoundationEssentials

// The one place an engine failure becomes a public `NetworkError`. Every `EngineError.Kind` is
// matched without `default:`, so a new kind does not compile until it has a public meaning here
// (and a row in NetworkErrorMappingTests).

extension NetworkError {
    /// Translates an engine failure into the public error.
    ///
    /// The code follows `URLError` where the meaning matches; the typed cause (``SystemError``,
    /// ``DNSError``, ``HTTPParseError``, ``ContentDecodingError``, ``RequestEncodingError``)
    /// becomes ``underlyingError``; the engine's sentence (host, errno text, parse error)
    /// becomes ``reason``. `EngineError` itself is package-only, so it is never exposed.
    /// - Parameters:
    ///   - error: What the engine reported.
    ///   - url: The URL of the request that failed.
    package init(_ error: EngineError, url: URL?) {
        let (code, cause) = Self.translate(error.kind)
        self.init(code, reason: Self.sentence(error.description), failingURL: url, underlyingError: cause)
    }

    /// Translates a failure of the session layer itself (one that never reached the engine).
    /// - Parameters:
    ///   - failure: What went wrong.
    ///   - url: The URL of the request that failed.
    init(_ failure: SessionFailure, url: URL?) {
        switch failure {
        case .cancelled:
            self.init(.cancelled, reason: "The task was cancelled", failingURL: url)
        case .cancelledWhileReadingBody:
            self.init(.cancelled, reason: "Cancelled while reading the body", failingURL: url)
        case .badURL(let why):
            self.init(.badURL, reason: Self.sentence(why), failingURL: url)
        case .unsupportedScheme(let scheme):
            self.init(.unsupportedURL, reason: "Unsupported protocol \"\(scheme)\"", failingURL: url)
        case .cannotCreateFile(let path, let cause):
            self.init(.cannotCreateFile, reason: "Cannot create \(path): \(cause.errnoText)", failingURL: url, underlyingError: cause)
        case .bodyLargerThan(let limit):
            self.init(.dataLengthExceedsMaximum, reason: "Body larger than \(limit) bytes", failingURL: url)
        case .sessionInvalidated:
            self.init(.sessionInvalidated, reason: "The session was invalidated before the task started", failingURL: url)
        case .redirect(let failure):
            switch failure {
            case .tooMany(let limit):
                self.init(.httpTooManyRedirects, reason: "More than \(limit) redirects", failingURL: url)
            case .unsupportedScheme(let location):
                self.init(.unsupportedURL, reason: "Redirect to an unsupported URL: \(location.prefix(200))", failingURL: url)
            case .badLocation(let location):
                self.init(.badServerResponse, reason: "Redirect to an invalid Location: \(location.prefix(200))", failingURL: url)
            case .insecure(let location):
                self.init(.appTransportSecurityRequiresSecureConnection,
                          reason: "Redirect from https to plain http refused: \(location.prefix(200))", failingURL: url)
            case .refusedByPolicy(let why):
                self.init(.appTransportSecurityRequiresSecureConnection, reason: why, failingURL: url)
            }
        case .authentication(let failure):
            self.init(.userAuthenticationRequired, reason: "Cannot answer the server's authentication challenge: \(failure)",
                      failingURL: url)
        case .invalidCredential(let failure, let forProxy):
            self.init(.invalidRequest, reason: "Cannot send these \(forProxy ? "proxy " : "")credentials: \(failure)", failingURL: url)
        case .taskCannotStream:
            self.init(.invalidRequest, reason: "Only a task that was never resumed and has no completion handler can be awaited (bytes(), data() or download())",
                      failingURL: url)
        case .engineUnavailable(let cause):
            self.init(.sessionInvalidated, reason: "The session's engine could not start: \(cause)", failingURL: url, underlyingError: cause)
        case .tlsUnavailable(let cause):
            self.init(.secureConnectionFailed, reason: "TLS could not be set up: \(cause)", failingURL: url, underlyingError: cause)
        case .transportSecurity(let why):
            self.init(.appTransportSecurityRequiresSecureConnection, reason: why, failingURL: url)
        case .unusableProxy(let cause):
            self.init(.unsupportedURL, reason: Self.sentence(cause.description), failingURL: url)
        case .cannotResume(let failure):
            var cause: (any Error & Sendable)?
            if case .partialFile(_, let error) = failure { cause = error }
            self.init(.cannotResumeDownload, reason: failure.description, failingURL: url, underlyingError: cause)
        case .invalidHeaderName(let name):
            // Lower case: tools quote it after their own words (`ferry: option -H: …`).
            self.init(.invalidRequest, reason: "invalid header name \"\(name.prefix(80))\"", failingURL: url,
                      underlyingError: RequestEncodingError(.invalidFieldName, detail: name))
        case .invalidHeaderValue(let name):
            self.init(.invalidRequest, reason: "header \(name) has a value with CR, LF, NUL or another control character",
                      failingURL: url, underlyingError: RequestEncodingError(.invalidFieldValue, detail: name))
        }
    }

    /// The public code and typed cause for each engine failure.
    private static func translate(_ kind: EngineError.Kind) -> (Code, (any Error & Sendable)?) {
        switch kind {
        case .cancelled:
            return (.cancelled, nil)
        case .invalidRequest(let cause):
            return (.invalidRequest, cause)
        case .hostNotFound(let cause):
            // URLSession separates "no such name" from "the lookup itself failed" (a resolver
            // that is down or timed out), which callers may want to retry.
            return (cause.isNameNotFound ? .cannotFindHost : .dnsLookupFailed, cause)
        case .connectFailed(_, _, let cause):
            return (.cannotConnectToHost, cause)
        case .connectTimedOut, .requestTimedOut, .totalTimedOut:
            // The reason says which timer fired and in which phase.
            return (.timedOut, nil)
        case .sendFailed(let cause), .receiveFailed(let cause, _):
            return (.networkConnectionLost, cause)
        case .emptyReply:
            return (.zeroByteResource, nil)
        case .parse(let cause):
            return (.cannotParseResponse, cause)
        case .partialBody:
            return (.networkConnectionLost, nil)
        case .decoding(let cause):
            // Size and ratio limits stay cannotDecodeContentData (the underlying kind tells them
            // apart): the body was refused while decoding it, and dataLengthExceedsMaximum is kept
            // for the caller's own cap on the body as received (bodyTooLarge).
            return (.cannotDecodeContentData, cause)
        case .bodyTooLarge:
            return (.dataLengthExceedsMaximum, nil)
        case .fileReadFailed(_, let cause):
            return (.cannotOpenFile, cause)
        case .fileWriteFailed(_, let cause):
            // A destination that could not be created is cannotCreateFile, as in URLSession;
            // a failure once writing has begun (disk full, I/O error) is cannotWriteToFile.
            return (creationCalls.contains(cause.syscall) ? .cannotCreateFile : .cannotWriteToFile, cause)
        case .requestBodyFailed:
            return (.requestBodyFailed, nil)
        case .loopThreadFailed(let cause):
            // Like running out of descriptors for the socket: the connection could not be made
            // for want of a local resource, and the reason says which.
            return (.cannotConnectToHost, cause)
        case .internalInconsistency:
            return (.internalInconsistency, nil)
        case .tlsHandshakeFailed(_, _, let cause), .tlsFailed(_, _, let cause, _):
            return (tlsCode(cause), cause)
        case .serverTrustRejected(let cause):
            return (trustCode(cause), cause)
        case .proxyFailed(let failure):
            return proxyCode(failure.reason)
        }
    }

    /// A proxy that could not be reached, or would not open a tunnel: codes of their own, so
    /// a caller can tell the proxy's fault from the server's.
    private static func proxyCode(_ reason: ProxyFailure.Reason) -> (Code, (any Error & Sendable)?) {
        switch reason {
        case .hostNotFound(let cause): return (.cannotFindProxyHost, cause)
        case .connectFailed(let cause): return (.cannotConnectToProxy, cause)
        case .timedOut: return (.timedOut, nil)
        case .refused, .closed, .unexpectedData: return (.proxyTunnelFailed, nil)
        case .malformedAnswer(let cause): return (.proxyTunnelFailed, cause)
        case .socketFailed(let cause): return (.proxyTunnelFailed, cause)
        }
    }

    /// A TLS failure: the client-certificate cases keep URLSession's own codes, since their
    /// fix (another identity) differs from a failed handshake's.
    private static func tlsCode(_ error: TLSError) -> Code {
        switch error.kind {
        case .clientCertificateRequired: return .clientCertificateRequired
        case .clientCertificateRejected: return .clientCertificateRejected
        default: return .secureConnectionFailed
        }
    }

    /// A refused server: URLSession's certificate codes by reason, and Ferry's own code for a
    /// pinning mismatch (which URLSession reports only as a cancelled challenge).
    private static func trustCode(_ error: ServerTrustError) -> Code {
        if error.kind == .pinningMismatch { return .pinningMismatch }
        if error.kind == .cancelled { return .cancelled }
        guard error.kind == .untrusted, let failure = error.trustFailure else { return .serverCertificateUntrusted }
        switch failure.reason {
        case .expired: return .serverCertificateHasBadDate
        case .notYetValid: return .serverCertificateNotYetValid
        case .unknownIssuer, .selfSigned: return .serverCertificateHasUnknownRoot
        default: return .serverCertificateUntrusted
        }
    }

    /// System calls that create or open a download's destination.
    private static let creationCalls: Set<String> = ["open", "openat", "creat", "mkdir", "mkdirat"]

    /// The engine's description as a sentence: it starts with a capital letter.
    private static func sentence(_ text: String) -> String {
        guard let first = text.first, first.isLowercase else { return text }
        return first.uppercased() + text.dropFirst()
    }
}

/// Failures of the session layer itself, before or beside the engine: each becomes a
/// ``NetworkError`` in ``NetworkError/init(_:url:)-(SessionFailure,_)``, next to the engine's.
enum SessionFailure: Error {
    /// The task was cancelled before it ran an exchange.
    case cancelled
    /// The consumer of a streamed body was cancelled.
    case cancelledWhileReadingBody
    /// The URL cannot be requested; the words say why.
    case badURL(String)
    /// The URL's scheme is neither http nor https.
    case unsupportedScheme(String)
    /// A download's file could not be made.
    case cannotCreateFile(path: String, SystemError)
    /// A body collected in memory passed the caller's limit.
    case bodyLargerThan(Int)
    /// The session no longer takes tasks.
    case sessionInvalidated
    /// A task was asked to stream its body after it had started, or it has a completion
    /// handler that collects the body.
    case taskCannotStream
    /// A redirect could not be followed.
    case redirect(RedirectFailure)
    /// An authentication challenge could not be answered with the credential chosen.
    case authentication(AuthenticationFailure)
    /// A credential given to a request (or for its proxy) cannot be sent.
    case invalidCredential(AuthenticationFailure, forProxy: Bool = false)
    /// The session's engine could not be created.
    case engineUnavailable(SystemError)
    /// OpenSSL refused the session's TLS configuration.
    case tlsUnavailable(TLSError)
    /// The proxy named for the request cannot be used.
    case unusableProxy(ProxyURLError)
    /// The transport security policy refuses the request; the words name the rule.
    case transportSecurity(String)
    /// A download cannot go on from the bytes on disk.
    case cannotResume(ResumeFailure)
    /// A header name given to a request is not a token.
    case invalidHeaderName(String)
    /// A header value given to a request holds CR, LF, NUL or another control character.
    case invalidHeaderValue(name: String)
}
