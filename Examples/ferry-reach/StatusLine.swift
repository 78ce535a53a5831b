import Ferry

/// The line `ferry-reach` prints for a status: CLI.md's words, or one JSON object.
enum StatusLine {
    /// `not-reachable`, `reachable via wifi (wlan0)`, `unknown`; or with `json`
    /// `{"status":"reachable","via":"wifi","interface":"wlan0"}`, `{"status":"not-reachable"}`.
    static func format(_ status: NetworkReachabilityStatus, json: Bool) -> String {
        guard json else { return status.description }
        switch status {
        case .unknown: return #"{"status":"unknown"}"#
        case .notReachable: return #"{"status":"not-reachable"}"#
        case .reachable(let kind, let name):
            return #"{"status":"reachable","via":"\#(kind)","interface":"\#(escaped(name))"}"#
        }
    }

    /// A JSON string body (RFC 8259 §7): quote, backslash and control characters escaped.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
