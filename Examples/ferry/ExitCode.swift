import Ferry

/// curl's exit codes, and the one table that maps a ``NetworkError`` to them.
///
/// Scripts test curl's numbers (`7` cannot connect, `28` timeout…), so `ferry` must exit with
/// the same ones. Every translation from an error to a number happens here.
struct ExitCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    let rawValue: Int32
    init(rawValue: Int32) { self.rawValue = rawValue }

    static let ok = ExitCode(rawValue: 0)
    static let unsupportedProtocol = ExitCode(rawValue: 1)
    static let usage = ExitCode(rawValue: 2)
    static let malformedURL = ExitCode(rawValue: 3)
    static let cannotResolveProxy = ExitCode(rawValue: 5)
    static let cannotResolveHost = ExitCode(rawValue: 6)
    static let cannotConnect = ExitCode(rawValue: 7)
    static let weirdServerReply = ExitCode(rawValue: 8)
    static let partialFile = ExitCode(rawValue: 18)
    static let httpError = ExitCode(rawValue: 22)
    static let writeError = ExitCode(rawValue: 23)
    static let readError = ExitCode(rawValue: 26)
    static let timedOut = ExitCode(rawValue: 28)
    /// curl's `CURLE_RANGE_ERROR`: `-C` asked for the rest of a file and the answer does not
    /// continue it.
    static let rangeError = ExitCode(rawValue: 33)
    static let sslConnectError = ExitCode(rawValue: 35)
    /// curl's `CURLE_ABORTED_BY_CALLBACK`: the transfer was stopped from the client side.
    static let aborted = ExitCode(rawValue: 42)
    static let tooManyRedirects = ExitCode(rawValue: 47)
    static let emptyReply = ExitCode(rawValue: 52)
    static let sendError = ExitCode(rawValue: 55)
    static let receiveError = ExitCode(rawValue: 56)
    static let badClientCertificate = ExitCode(rawValue: 58)
    static let peerFailedVerification = ExitCode(rawValue: 60)
    static let badContentEncoding = ExitCode(rawValue: 61)
    static let fileSizeExceeded = ExitCode(rawValue: 63)
    static let badCAFile = ExitCode(rawValue: 77)
    static let pinningMismatch = ExitCode(rawValue: 90)

    var description: String { String(rawValue) }

    /// The table: a Ferry error code to curl's exit code. Codes not listed fall back to 56
    /// (a receive failure), never to 0.
    static let table: [NetworkError.Code: ExitCode] = [
        // A cancelled task only happens when ferry itself stops a transfer (an interrupt).
        .cancelled: .aborted,
        .sessionInvalidated: .aborted,
        .badURL: .malformedURL,
        .unsupportedURL: .unsupportedProtocol,
        // curl: "Protocol "http" disabled" (--proto, --proto-redir) is exit 1.
        .appTransportSecurityRequiresSecureConnection: .unsupportedProtocol,
        .cannotFindHost: .cannotResolveHost,
        .dnsLookupFailed: .cannotResolveHost,
        .cannotConnectToHost: .cannotConnect,
        .cannotFindProxyHost: .cannotResolveProxy,
        .cannotConnectToProxy: .cannotConnect,
        // curl: "CONNECT tunnel failed, response 403" is a receive error.
        .proxyTunnelFailed: .receiveError,
        .cannotParseResponse: .weirdServerReply,
        .badServerResponse: .weirdServerReply,
        .responseSerializationFailed: .weirdServerReply,
        .zeroByteResource: .emptyReply,
        .networkConnectionLost: .receiveError,
        .timedOut: .timedOut,
        .httpTooManyRedirects: .tooManyRedirects,
        .cannotDecodeContentData: .badContentEncoding,
        .dataLengthExceedsMaximum: .fileSizeExceeded,
        // -C: the server ignored the range (a 200), answered another one, or refused (a 404
        // without -f), or the file holds fewer bytes than -C N keeps. curl: "HTTP server doesn't
        // seem to support byte ranges. Cannot resume."
        .cannotResumeDownload: .rangeError,
        .cannotWriteToFile: .writeError,
        .cannotCreateFile: .writeError,
        .cannotOpenFile: .readError,
        .requestBodyFailed: .readError,
        .invalidRequest: .usage,
        .secureConnectionFailed: .sslConnectError,
        .serverCertificateHasBadDate: .peerFailedVerification,
        .serverCertificateUntrusted: .peerFailedVerification,
        .serverCertificateHasUnknownRoot: .peerFailedVerification,
        .serverCertificateNotYetValid: .peerFailedVerification,
        // curl 7.88 exits 35 when the server refuses the client certificate inside the handshake
        // (TLS 1.2) and 56 when the refusal arrives as an alert after it (TLS 1.3): see init.
        // Its 58 is for a client certificate file it cannot load (TLSSetup), never the server's word.
        .clientCertificateRejected: .sslConnectError,
        .clientCertificateRequired: .sslConnectError,
        .pinningMismatch: .pinningMismatch,
    ]

    /// The parse errors of a chunked body's framing and trailers: curl's 56, not 8 (the head
    /// was fine).
    static let bodyFramingErrors: Set<HTTPParseError.Kind> = [
        .invalidChunkSize, .chunkSizeOverflow, .invalidChunkFraming, .chunkExtensionTooLong, .trailersTooLarge,
    ]

    /// The TLS failures whose number depends on when they happened.
    static let tlsFailures: Set<NetworkError.Code> = [.secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired]

    /// curl's exit code for `error`.
    ///
    /// A lost connection is 18 (partial file) when the peer closed inside a body whose end was
    /// announced, as curl's "transfer closed with N bytes remaining to read"; any other loss
    /// (a reset, a failure before the body) is 56, and so is a chunked body's broken framing.
    ///
    /// A TLS failure is 35 during the handshake and 56 once it is over, as curl's (a failed
    /// `SSL_connect` against a failed `SSL_read`): in TLS 1.3 a client finishes its handshake
    /// before the server judges its certificate, so a server that requires one and gets none
    /// answers with an alert that curl 7.88 meets while reading the response (56); in TLS 1.2
    /// the same refusal ends the handshake (35).
    /// - Parameters:
    ///   - error: the transfer's failure.
    ///   - afterHandshake: whether the failing exchange's connection had finished its TLS
    ///     handshake (or was a reused one).
    init(_ error: NetworkError, afterHandshake: Bool = false) {
        if error.code == .networkConnectionLost && Self.isPartialBody(error) {
            self = .partialFile
        } else if error.code == .cannotParseResponse, let parseError = error.underlyingError as? HTTPParseError,
                  Self.bodyFramingErrors.contains(parseError.kind) {
            // curl: "Illegal or missing hexadecimal sequence in chunked-encoding" is a receive error.
            self = .receiveError
        } else if afterHandshake && Self.tlsFailures.contains(error.code) {
            self = .receiveError
        } else {
            self = Self.table[error.code] ?? .receiveError
        }
    }

    /// The exit code of a run from its transfers' codes, in the order they finished.
    ///
    /// curl 7.88 returns the last transfer's code when it runs them one after another (a
    /// failure followed by a success exits 0), and the last failure when they run in parallel.
    static func overall(_ codes: [ExitCode], parallel: Bool) -> ExitCode {
        if parallel { return codes.last { $0 != .ok } ?? .ok }
        return codes.last ?? .ok
    }

    private static func isPartialBody(_ error: NetworkError) -> Bool {
        if let parseError = error.underlyingError as? HTTPParseError, parseError.kind == .incompleteBody {
            return true
        }
        // FerrySession maps the engine's partial-body failure to networkConnectionLost with no
        // typed cause and the engine's sentence ("Transfer closed with 10 bytes remaining to
        // read"); a reset carries a SystemError instead. The sentence is the only public sign.
        return error.reason.lowercased().hasPrefix("transfer closed with")
    }
}
