import FerryIO
import FerryTLS
import FerryWire

/// Why the engine could not complete an exchange.
///
/// The engine reports these; `FerrySession` translates them into `NetworkError` in one
/// mapping file. Each case carries the typed cause so nothing is lost in translation.
package struct EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The phase an exchange was in when it failed.
    package enum Phase: String, Sendable, Equatable {
        case resolving, connecting, sendingRequest, awaitingResponse, receivingHead, receivingBody

        /// The phase in words, for error sentences.
        package var text: String {
            switch self {
            case .resolving: return "resolving the host"
            case .connecting: return "connecting"
            case .sendingRequest: return "sending the request"
            case .awaitingResponse: return "waiting for the response"
            case .receivingHead: return "receiving the response head"
            case .receivingBody: return "receiving the response body"
            }
        }
    }

    /// What happened.
    package enum Kind: Sendable, Equatable {
        /// The caller cancelled, or the session was invalidated.
        case cancelled
        /// The request was refused before anything was sent.
        case invalidRequest(RequestEncodingError)
        /// The host name could not be resolved.
        case hostNotFound(DNSError)
        /// Every address of the host refused or failed to connect; the last error is kept.
        case connectFailed(host: String, port: Int, SystemError)
        /// The connect timeout fired before any address answered.
        case connectTimedOut(host: String, port: Int)
        /// No byte moved for longer than the request timeout.
        case requestTimedOut(Phase)
        /// The whole exchange took longer than its total timeout.
        case totalTimedOut(Phase)
        /// Writing the request failed.
        case sendFailed(SystemError)
        /// Reading the response failed (for example a reset).
        case receiveFailed(SystemError, Phase)
        /// The peer closed the connection before sending any byte of a response.
        case emptyReply
        /// The response violated HTTP/1.1 or a parser limit (includes EOF inside the head).
        case parse(HTTPParseError)
        /// The peer closed the connection inside a length-delimited or chunked body.
        case partialBody(received: Int64, expected: Int64?)
        /// The body could not be decoded.
        case decoding(ContentDecodingError)
        /// The body is larger than the caller allowed.
        case bodyTooLarge(limit: Int64)
        /// A local file could not be read for an upload.
        case fileReadFailed(path: String, SystemError)
        /// A local file could not be created or written for a download.
        case fileWriteFailed(path: String, SystemError)
        /// The request body stream failed or lied about its length.
        case requestBodyFailed(String)
        /// The TLS handshake with the server failed (no common version, an alert, the server
        /// refused the client certificate, the server closed the connection…).
        case tlsHandshakeFailed(host: String, port: Int, TLSError)
        /// The server's certificate chain was refused by the trust evaluation (untrusted,
        /// pinning mismatch, or a policy's refusal). No application data was sent.
        case serverTrustRejected(ServerTrustError)
        /// TLS failed after the handshake (a bad record, a fatal alert such as TLS 1.3's late
        /// certificate_required).
        case tlsFailed(host: String, port: Int, TLSError, Phase)
        /// The proxy could not be reached, or would not open a tunnel; nothing of the request
        /// reached the origin. Indirect: the proxy's answer would make every error, and every
        /// task that keeps one, bigger.
        indirect case proxyFailed(ProxyFailure)
        /// The event loop the request was to run on could not start its thread (the process is
        /// out of threads or memory). A later request tries again.
        case loopThreadFailed(SystemError)
        /// Ferry's own bug: an impossible transition. The request fails; the process lives on.
        case internalInconsistency(String)
    }

    /// What happened.
    package let kind: Kind

    /// Creates an error.
    package init(_ kind: Kind) { self.kind = kind }

    /// A readable sentence naming the cause.
    package var description: String {
        switch kind {
        case .cancelled: return "cancelled"
        case .invalidRequest(let error): return "refused to send request: \(error)"
        case .hostNotFound(let error): return error.description
        case .connectFailed(let host, let port, let error):
            return "Failed to connect to \(host) port \(port): \(error.errnoText)"
        case .connectTimedOut(let host, let port):
            return "Connection to \(host) port \(port) timed out"
        case .requestTimedOut(let phase): return "no data for too long while \(phase.text)"
        case .totalTimedOut(let phase): return "operation timed out while \(phase.text)"
        case .sendFailed(let error): return "failed sending request: \(error)"
        case .receiveFailed(let error, let phase): return "failure while \(phase.text): \(error)"
        case .emptyReply: return "Empty reply from server"
        case .parse(let error): return "malformed response: \(error)"
        case .partialBody(let received, let expected):
            if let expected { return "transfer closed with \(expected - received) bytes remaining to read" }
            return "transfer closed with outstanding read data remaining (\(received) bytes read)"
        case .decoding(let error): return "could not decode body: \(error)"
        case .bodyTooLarge(let limit): return "body larger than the allowed \(limit) bytes"
        case .fileReadFailed(let path, let error): return "cannot read \(path): \(error.errnoText)"
        case .fileWriteFailed(let path, let error): return "cannot write \(path): \(error.errnoText)"
        case .proxyFailed(let failure): return failure.description
        case .loopThreadFailed(let error): return "could not start a network thread: \(error.errnoText)"
        case .requestBodyFailed(let text): return "request body failed: \(text)"
        case .tlsHandshakeFailed(let host, let port, let error):
            return "TLS connect error with \(host) port \(port): \(error)"
        case .serverTrustRejected(let error): return error.description
        case .tlsFailed(let host, let port, let error, let phase):
            return "TLS error with \(host) port \(port): \(error) while \(phase.text)"
        case .internalInconsistency(let text): return "internal error in Ferry: \(text)"
        }
    }
}
