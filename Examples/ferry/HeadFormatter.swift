import Ferry

/// Request and response heads as curl prints them: `-i`/`-I` on the output, `-v` on stderr.
///
/// Header lines end with CRLF in both places, as curl writes them (it passes the head through
/// as received); connection notes (`* …`) end with LF only.
enum HeadFormatter {
    /// The request head lines, without line ends: request line, Host (the head's authority:
    /// swift-http-types keeps Host there, never among the fields), then the fields.
    static func requestLines(_ head: HTTPRequest) -> [String] {
        var lines = ["\(head.method.rawValue) \(head.path ?? "/") HTTP/1.1"]
        if let authority = head.authority {
            lines.append("Host: \(authority)")
        }
        lines += head.headerFields.map { "\($0.name.rawName): \($0.value)" }
        return lines
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

    /// `-v` lines for a request head: `> ` before each line, then `> ` alone.
    static func verboseRequest(_ head: HTTPRequest) -> String {
        verbose(requestLines(head), marker: ">")
    }

    /// `-v` lines for a response head: `< ` before each line, then `< ` alone.
    static func verboseResponse(_ response: NetworkResponse) -> String {
        verbose(responseLines(response), marker: "<")
    }

    /// `-v` note about the connection a request went out on.
    static func connectionNote(host: String, _ connection: ConnectionInfo) -> String {
        if connection.isReused { return "* Re-using existing connection\n" }
        return "* Connected to \(host) (\(connection.remoteAddress)) port \(connection.remotePort)\n"
    }

    private static func verbose(_ lines: [String], marker: String) -> String {
        (lines + [""]).map { "\(marker) \($0)\r\n" }.joined()
    }
}
