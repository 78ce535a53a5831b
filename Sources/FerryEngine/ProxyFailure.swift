import FerryIO
import FerryWire

/// Why a proxy could not carry a request: it could not be reached, or it would not open a
/// tunnel. Nothing of the request reached the origin.
package struct ProxyFailure: Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    package enum Reason: Sendable, Equatable {
        /// The proxy's name did not resolve.
        case hostNotFound(DNSError)
        /// Every address of the proxy refused or failed; the last error is kept.
        case connectFailed(SystemError)
        /// The connect timeout fired while reaching the proxy or waiting for its answer to CONNECT.
        case timedOut
        /// The proxy answered CONNECT with a status other than 2xx (its head is kept: a 407
        /// carries `Proxy-Authenticate`).
        case refused(ResponseHead)
        /// The proxy closed the connection before answering CONNECT.
        case closed
        /// The proxy's answer to CONNECT was not HTTP/1.1, or broke a parser limit.
        case malformedAnswer(HTTPParseError)
        /// The proxy sent bytes after its 2xx answer, before the client spoke: not a tunnel.
        case unexpectedData
        /// Writing CONNECT or reading the answer failed.
        case socketFailed(SystemError)
    }

    /// The proxy's host.
    package var proxyHost: String
    /// The proxy's port.
    package var proxyPort: Int
    /// What went wrong.
    package var reason: Reason

    /// Creates a failure.
    package init(proxyHost: String, proxyPort: Int, _ reason: Reason) {
        self.proxyHost = proxyHost
        self.proxyPort = proxyPort
        self.reason = reason
    }

    /// The proxy's answer to CONNECT when it refused, else nil.
    package var refusal: ResponseHead? {
        if case .refused(let head) = reason { return head }
        return nil
    }

    /// A sentence as curl words it.
    package var description: String {
        switch reason {
        case .hostNotFound(let error):
            // DNSError says "Could not resolve host: NAME (why)"; curl says "proxy" here.
            "Could not resolve proxy" + error.description.drop { $0 != ":" }
        case .connectFailed(let error): "Failed to connect to proxy \(proxyHost) port \(proxyPort): \(error.errnoText)"
        case .timedOut: "Connection to proxy \(proxyHost) port \(proxyPort) timed out"
        case .refused(let head):
            "CONNECT tunnel failed, response \(head.status.code) from proxy \(proxyHost) port \(proxyPort)"
        case .closed: "Proxy CONNECT aborted: proxy \(proxyHost) port \(proxyPort) closed the connection"
        case .malformedAnswer(let error): "Proxy \(proxyHost) port \(proxyPort) sent a malformed answer to CONNECT: \(error)"
        case .unexpectedData: "Proxy \(proxyHost) port \(proxyPort) sent data after opening the tunnel"
        case .socketFailed(let error): "Proxy CONNECT aborted: \(error) (proxy \(proxyHost) port \(proxyPort))"
        }
    }
}
