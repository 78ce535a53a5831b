import FerryEngine
import FerryIO
import FerryWire
import FoundationEssentials

/// The one error Ferry's public API throws.
///
/// ``code`` mirrors `URLError.Code` numbers where the meaning matches, so code written against
/// URLSession reads the same; Ferry-only failures (such as a pinning mismatch) use their own
/// range. ``underlyingError`` keeps the typed cause: a ``SystemError`` (errno and syscall), a
/// ``DNSError``, an ``HTTPParseError`` (kind and byte offset), a ``ContentDecodingError`` or a
/// ``RequestEncodingError``.
public struct NetworkError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a number. An open set: new codes can be added without breaking callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The number, equal to `URLError.Code.rawValue` where one matches.
        public let rawValue: Int
        /// Creates a code from its number.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The task was cancelled (-999).
        public static let cancelled = Code(rawValue: -999)
        /// The URL is malformed (-1000).
        public static let badURL = Code(rawValue: -1000)
        /// A timeout fired: connect, idle or total (-1001).
        public static let timedOut = Code(rawValue: -1001)
        /// The URL's scheme is not supported (-1002).
        public static let unsupportedURL = Code(rawValue: -1002)
        /// The host name could not be resolved (-1003).
        public static let cannotFindHost = Code(rawValue: -1003)
        /// No address of the host accepted a connection (-1004).
        public static let cannotConnectToHost = Code(rawValue: -1004)
        /// The connection failed or closed during the exchange (-1005).
        public static let networkConnectionLost = Code(rawValue: -1005)
        /// Name resolution failed for a reason other than the name not existing (-1006).
        public static let dnsLookupFailed = Code(rawValue: -1006)
        /// Too many redirects (-1007).
        public static let httpTooManyRedirects = Code(rawValue: -1007)
        /// The server's reply is unusable, or a validation rejected it (-1011).
        public static let badServerResponse = Code(rawValue: -1011)
        /// The server asked for a proof of identity that Ferry cannot give: an authentication
        /// challenge it cannot answer (-1013).
        public static let userAuthenticationRequired = Code(rawValue: -1013)
        /// The server closed the connection without sending a byte (-1014 in URLSession terms).
        public static let zeroByteResource = Code(rawValue: -1014)
        /// A secure connection was required and the request would have used plain http
        /// (-1022): an https → http redirect the configuration refuses.
        public static let appTransportSecurityRequiresSecureConnection = Code(rawValue: -1022)
        /// The body could not be decoded (-1016).
        public static let cannotDecodeContentData = Code(rawValue: -1016)
        /// The response is not valid HTTP (-1017).
        public static let cannotParseResponse = Code(rawValue: -1017)
        /// The body is larger than allowed (-1103).
        public static let dataLengthExceedsMaximum = Code(rawValue: -1103)
        /// The TLS handshake failed (-1200).
        public static let secureConnectionFailed = Code(rawValue: -1200)
        /// The server certificate is expired (-1201).
        public static let serverCertificateHasBadDate = Code(rawValue: -1201)
        /// The server certificate is not trusted (-1202).
        public static let serverCertificateUntrusted = Code(rawValue: -1202)
        /// The server certificate chains to an unknown root (-1203).
        public static let serverCertificateHasUnknownRoot = Code(rawValue: -1203)
        /// The server certificate is not yet valid (-1204).
        public static let serverCertificateNotYetValid = Code(rawValue: -1204)
        /// The server rejected the client certificate (-1205).
        public static let clientCertificateRejected = Code(rawValue: -1205)
        /// The server requires a client certificate (-1206).
        public static let clientCertificateRequired = Code(rawValue: -1206)
        /// A local file could not be read (-1008 `resourceUnavailable` is URLSession's nearest; Ferry uses -3001).
        public static let cannotOpenFile = Code(rawValue: -3001)
        /// A file could not be created (-3000).
        public static let cannotCreateFile = Code(rawValue: -3000)
        /// Writing to a file failed (-3003).
        public static let cannotWriteToFile = Code(rawValue: -3003)
        /// A downloaded file could not be moved to where the caller asked (-3005).
        public static let cannotMoveFile = Code(rawValue: -3005)

        // Ferry-only codes live in -4000…-4999.

        /// The request was refused before any byte was sent: an invalid header or method (-4001).
        public static let invalidRequest = Code(rawValue: -4001)
        /// The server's certificate or key matched no pin (-4002).
        public static let pinningMismatch = Code(rawValue: -4002)
        /// The session was invalidated before the task could run (-4003).
        public static let sessionInvalidated = Code(rawValue: -4003)
        /// A response serializer rejected the body (-4004).
        public static let responseSerializationFailed = Code(rawValue: -4004)
        /// The request body failed or lied about its length (-4005).
        public static let requestBodyFailed = Code(rawValue: -4005)
        /// Ferry broke one of its own invariants; the request failed instead of the process (-4006).
        public static let internalInconsistency = Code(rawValue: -4006)
        /// The proxy's host name could not be resolved (-4007; curl's exit 5).
        public static let cannotFindProxyHost = Code(rawValue: -4007)
        /// The proxy refused or failed the connection (-4008).
        public static let cannotConnectToProxy = Code(rawValue: -4008)
        /// The proxy would not open a tunnel to the server: it answered CONNECT with another
        /// status than 2xx (``NetworkError/response`` has it; a 407 nobody could answer is one),
        /// or broke off before the tunnel was open (-4009). Nothing reached the server.
        public static let proxyTunnelFailed = Code(rawValue: -4009)
        /// A download cannot go on from the bytes on disk (-4010): its resume data is corrupt
        /// or of another version, its partial file is gone or shorter than the data says, or
        /// the server's answer to the range request does not fit those bytes (a 206 that starts
        /// elsewhere, a 416 of another length, a 200 where no validator could tell a changed
        /// resource from a server that ignores ranges, another status). curl's exit 33.
        public static let cannotResumeDownload = Code(rawValue: -4010)

        /// The code's name, such as `timedOut`, for logs and metric labels.
        public var description: String {
            Self.names[rawValue] ?? "code \(rawValue)"
        }

        private static let names: [Int: String] = [
            -999: "cancelled", -1000: "badURL", -1001: "timedOut", -1002: "unsupportedURL",
            -1003: "cannotFindHost", -1004: "cannotConnectToHost", -1005: "networkConnectionLost",
            -1006: "dnsLookupFailed", -1007: "httpTooManyRedirects", -1011: "badServerResponse",
            -1013: "userAuthenticationRequired", -1014: "zeroByteResource", -1016: "cannotDecodeContentData", -1017: "cannotParseResponse",
            -1022: "appTransportSecurityRequiresSecureConnection",
            -1103: "dataLengthExceedsMaximum", -1200: "secureConnectionFailed",
            -1201: "serverCertificateHasBadDate", -1202: "serverCertificateUntrusted",
            -1203: "serverCertificateHasUnknownRoot", -1204: "serverCertificateNotYetValid",
            -1205: "clientCertificateRejected", -1206: "clientCertificateRequired",
            -3000: "cannotCreateFile", -3001: "cannotOpenFile", -3003: "cannotWriteToFile", -3005: "cannotMoveFile",
            -4001: "invalidRequest", -4002: "pinningMismatch", -4003: "sessionInvalidated",
            -4004: "responseSerializationFailed", -4005: "requestBodyFailed", -4006: "internalInconsistency",
            -4007: "cannotFindProxyHost", -4008: "cannotConnectToProxy", -4009: "proxyTunnelFailed",
            -4010: "cannotResumeDownload",
        ]
    }

    /// Largest body prefix kept in ``responseData``.
    public static let maxResponseDataBytes = 64 * 1024

    /// The fields, in one immutable object: an error is a word wherever it is kept (a task
    /// holds one, and a task object must stay small; see ``SessionTask``).
    private final class Storage: Sendable {
        let code: Code
        let failingURL: URL?
        let underlyingError: (any Error & Sendable)?
        let response: NetworkResponse?
        let responseData: Data?
        let reason: String
        let downloadTaskResumeData: Data?

        init(code: Code, failingURL: URL?, underlyingError: (any Error & Sendable)?, response: NetworkResponse?,
             responseData: Data?, reason: String, downloadTaskResumeData: Data?) {
            self.code = code
            self.failingURL = failingURL
            self.underlyingError = underlyingError
            self.response = response
            self.responseData = responseData
            self.reason = reason
            self.downloadTaskResumeData = downloadTaskResumeData
        }
    }

    private let storage: Storage

    /// What went wrong.
    public var code: Code { storage.code }
    /// The URL of the request that failed.
    public var failingURL: URL? { storage.failingURL }
    /// The typed cause, when there is one.
    public var underlyingError: (any Error & Sendable)? { storage.underlyingError }
    /// The response the failure concerns: one that a validation rejected, a redirect that
    /// could not be followed (too many, or to a place the task may not go), or one whose head
    /// arrived before the exchange failed.
    public var response: NetworkResponse? { storage.response }
    /// For a validation failure, the start of the rejected body (at most ``maxResponseDataBytes``).
    public var responseData: Data? { storage.responseData }
    /// A sentence naming the cause in a user's words.
    public var reason: String { storage.reason }
    /// For a download task that failed part way (the connection was lost, a timeout fired, it
    /// was cancelled with ``DownloadTask/cancel(byProducingResumeData:)``): the data that
    /// continues it where it stopped, with ``Session/downloadTask(withResumeData:)``. URLError's
    /// `downloadTaskResumeData`. Nil when the download cannot be resumed (see
    /// ``DownloadTask/cancel(byProducingResumeData:)`` for when it can).
    public var downloadTaskResumeData: Data? { storage.downloadTaskResumeData }

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - reason: A sentence naming the cause (host, errno text, parse error…).
    ///   - failingURL: The URL of the request.
    ///   - underlyingError: The typed cause.
    ///   - response: The rejected response, for validation failures.
    ///   - responseData: The rejected body; it is truncated to ``maxResponseDataBytes``.
    public init(
        _ code: Code,
        reason: String,
        failingURL: URL? = nil,
        underlyingError: (any Error & Sendable)? = nil,
        response: NetworkResponse? = nil,
        responseData: Data? = nil
    ) {
        storage = Storage(code: code, failingURL: failingURL, underlyingError: underlyingError, response: response,
                          responseData: responseData.map { $0.prefix(Self.maxResponseDataBytes) }, reason: reason,
                          downloadTaskResumeData: nil)
    }

    private init(_ storage: Storage) {
        self.storage = storage
    }

    /// `reason (code -1004 cannotConnectToHost) for URL`.
    public var description: String {
        var text = "\(reason) (\(code.rawValue) \(code))"
        if let failingURL { text += " [\(failingURL.absoluteString)]" }
        return text
    }
}

extension NetworkError {
    /// The same error carrying the response it concerns (its head arrived before the failure).
    func attaching(response: NetworkResponse?) -> NetworkError {
        guard let response, self.response == nil else { return self }
        return NetworkError(Storage(code: code, failingURL: failingURL, underlyingError: underlyingError, response: response,
                                    responseData: responseData, reason: reason, downloadTaskResumeData: downloadTaskResumeData))
    }

    /// The same error carrying a failed download's resume data.
    func attaching(resumeData: Data?) -> NetworkError {
        guard let resumeData else { return self }
        return NetworkError(Storage(code: code, failingURL: failingURL, underlyingError: underlyingError, response: response,
                                    responseData: responseData, reason: reason, downloadTaskResumeData: resumeData))
    }
}

extension NetworkError: Equatable {
    /// Two errors are equal when their code and failing URL are; the cause is for diagnosis.
    public static func == (lhs: NetworkError, rhs: NetworkError) -> Bool {
        lhs.code == rhs.code && lhs.failingURL == rhs.failingURL
    }
}
