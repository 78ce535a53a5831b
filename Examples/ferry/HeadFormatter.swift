import Ferry

/// Request and response heads as curl prints them: `-i`/`-I` on the output, `-v` on stderr.
///
/// Header lines end with CRLF in both places, as curl writes them (it passes the head through
/// as received); connection notes (`* …`) end with LF only.
enum HeadFormatter {
    /// The request head lines, without line ends: request line, Host (the head's authority:
    /// swift-http-types keeps Host there, never among the fields), then the fields; with
    /// `redactingCredentials`, the credentials of `Authorization` and `Proxy-Authorization`
    /// replaced (``redacted(_:)``).
    static func requestLines(_ head: HTTPRequest, redactingCredentials: Bool = false) -> [String] {
        var lines = ["\(head.method.rawValue) \(head.path ?? "/") HTTP/1.1"]
        if let authority = head.authority {
            lines.append("Host: \(authority)")
        }
        lines += head.headerFields.map { field in
            let secret = redactingCredentials && (field.name == .authorization || field.name == .proxyAuthorization)
            return "\(field.name.rawName): \(secret ? redacted(field.value) : field.value)"
        }
        return lines
    }

    /// A credential field's value with its secret hidden: the scheme stays (`Basic [redacted]`),
    /// so a reader still sees which answer went out.
    static func redacted(_ value: String) -> String {
        guard let space = value.firstIndex(of: " ") else { return "[redacted]" }
        return value[..<space] + " [redacted]"
    }

    /// The response head lines, without line ends: status line, then the fields as received.
    static func responseLines(_ response: NetworkResponse) -> [String] {
        let reason = response.status.reasonPhrase
        var lines = ["\(response.httpVersion) \(response.statusCode)" + (reason.isEmpty ? "" : " \(reason)")]
        lines += response.headerFields.map { "\($0.name.rawName): \($0.value)" }
        return lines
    }

    /// The head as `-i` and `-I` write it: CRLF after each line and an empty line at the end.
    static func included(_ response: NetworkResponse) -> String {
        responseLines(response).map { $0 + "\r\n" }.joined() + "\r\n"
    }

    /// `-v` lines for a request head: `> ` before each line, then `> ` alone. Credentials are
    /// hidden unless `showingCredentials` (`--show-credentials`): a `-v` log is pasted into bug
    /// reports and CI output, where a password must not travel.
    static func verboseRequest(_ head: HTTPRequest, showingCredentials: Bool = false) -> String {
        verbose(requestLines(head, redactingCredentials: !showingCredentials), marker: ">")
    }

    /// `-v` lines for a response head: `< ` before each line, then `< ` alone.
    static func verboseResponse(_ response: NetworkResponse) -> String {
        verbose(responseLines(response), marker: "<")
    }

    /// `-v` notes about the connection a request went out on: where it goes, and for https
    /// the TLS facts in curl's words (version and cipher, the ALPN protocol), plus whether the
    /// handshake resumed an earlier session. A kept-alive connection did no handshake: curl
    /// then only says that it re-uses it.
    static func connectionNote(host: String, _ connection: ConnectionInfo) -> String {
        if connection.isReused { return "* Re-using existing connection with host \(host)\n" }
        var lines = ["Connected to \(host) (\(connection.remoteAddress)) port \(connection.remotePort)"]
        if let version = connection.tlsProtocolVersion {
            lines.append("SSL connection using \(version) / \(connection.tlsCipherSuite ?? "unknown cipher")")
            if let alpn = connection.tlsApplicationProtocol {
                lines.append("ALPN: server accepted \(alpn)")
            } else {
                lines.append("ALPN: server did not agree on a protocol. Uses default.")
            }
            if connection.isTLSSessionResumed {
                lines.append("SSL session resumed (abbreviated handshake, no certificate exchange)")
            }
        }
        return lines.map { "* \($0)\n" }.joined()
    }

    private static func verbose(_ lines: [String], marker: String) -> String {
        (lines + [""]).map { "\(marker) \($0)\r\n" }.joined()
    }
}
