import Ferry
import FoundationEssentials

/// Renders a `-w` format for one transfer, as curl does.
///
/// `%{name}` prints a variable, `%header{name}` a response field, `%%` a percent sign, and
/// `\n`, `\r`, `\t` the control characters. Anything else is printed as written; an unknown
/// variable prints nothing and a warning, as curl. `%{stderr}` and `%{stdout}` send what
/// follows to that stream, and `%{onerror}` drops the rest unless the transfer failed.
struct WriteOut: Sendable {
    /// A piece of the format, read once: text printed as is, a variable, or a response field.
    enum Piece: Sendable, Equatable {
        case text(String)
        case variable(String)
        case header(String)
    }

    let format: String
    /// The format, parsed once for every transfer of the run.
    let pieces: [Piece]

    init(_ format: String) {
        self.format = format
        pieces = Self.parse(format)
    }

    /// The text for standard output, the text for standard error, and warnings.
    func render(_ report: TransferReport) -> (text: String, errorText: String, warnings: [String]) {
        var text = ""
        var errorText = ""
        var toStandardError = false
        var warnings: [String] = []
        func emit(_ piece: String) {
            if toStandardError { errorText += piece } else { text += piece }
        }
        rendering: for piece in pieces {
            switch piece {
            case .text(let literal):
                emit(literal)
            case .variable("stdout"):
                toStandardError = false
            case .variable("stderr"):
                toStandardError = true
            case .variable("onerror"):
                // curl: the rest of the format is shown only for a transfer that failed.
                if report.exitCode == .ok { break rendering }
            case .variable(let name):
                if let value = Self.value(of: name, in: report) {
                    emit(value)
                } else {
                    warnings.append("unknown --write-out variable: '\(name)'")
                }
            case .header(let name):
                emit(HTTPField.Name(name).map { report.responseHeaders[values: $0].joined(separator: ", ") } ?? "")
            }
        }
        return (text, errorText, warnings)
    }

    /// Splits a format into pieces, with curl's rules: `%{name}`, `%header{name}`, `%%`, the
    /// escapes `\n`, `\r`, `\t`; anything else is text.
    static func parse(_ format: String) -> [Piece] {
        var pieces: [Piece] = []
        var text = ""
        func flush() {
            if !text.isEmpty { pieces.append(.text(text)) }
            text = ""
        }
        var rest = Substring(format)
        while let first = rest.first {
            if first == "%" {
                rest = rest.dropFirst()
                if rest.first == "%" {
                    text.append("%")
                    rest = rest.dropFirst()
                } else if rest.hasPrefix("{"), let close = rest.firstIndex(of: "}") {
                    flush()
                    pieces.append(.variable(String(rest[rest.index(after: rest.startIndex)..<close])))
                    rest = rest[rest.index(after: close)...]
                } else if rest.hasPrefix("header{"), let close = rest.firstIndex(of: "}") {
                    flush()
                    pieces.append(.header(String(rest[rest.index(rest.startIndex, offsetBy: 7)..<close])))
                    rest = rest[rest.index(after: close)...]
                } else {
                    text.append("%")
                }
            } else if first == "\\", let next = rest.dropFirst().first, let escaped = Self.escapes[next] {
                text.append(escaped)
                rest = rest.dropFirst(2)
            } else {
                text.append(first)
                rest = rest.dropFirst()
            }
        }
        flush()
        return pieces
    }

    private static let escapes: [Character: Character] = ["n": "\n", "r": "\r", "t": "\t"]

    /// A variable's text, or nil when curl does not know the name.
    static func value(of name: String, in report: TransferReport) -> String? {
        switch name {
        case "http_code", "response_code": return threeDigits(report.httpCode)
        case "http_version": return report.httpVersion.isEmpty ? "0" : report.httpVersion
        case "size_download": return String(report.sizeDownload)
        case "size_upload": return String(report.sizeUpload)
        case "size_header": return String(report.sizeHeader)
        case "size_request": return String(report.sizeRequest)
        case "speed_download": return String(report.speedDownload)
        case "num_redirects": return String(report.numRedirects)
        case "num_connects": return String(report.numConnects)
        case "url_effective": return report.urlEffective
        case "method": return report.method
        case "content_type": return report.contentType ?? ""
        case "remote_ip": return report.remoteIP ?? ""
        case "remote_port": return report.remotePort.map(String.init) ?? ""
        case "time_namelookup": return seconds(report.timeNamelookup)
        case "time_connect": return seconds(report.timeConnect)
        case "time_appconnect": return seconds(report.timeAppconnect)
        case "time_pretransfer": return seconds(report.timePretransfer)
        case "time_starttransfer": return seconds(report.timeStarttransfer)
        case "time_total": return seconds(report.timeTotal)
        case "ssl_verify_result": return String(report.sslVerifyResult)
        case "exitcode": return String(report.exitCode.rawValue)
        case "errormsg": return report.errorMessage
        default: return nil
        }
    }

    /// curl prints times in seconds with six decimals, whatever the locale.
    static func seconds(_ value: Double) -> String {
        let micros = Int64((max(value, 0) * 1_000_000).rounded())
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    private static func threeDigits(_ code: Int) -> String {
        let text = String(code)
        return String(repeating: "0", count: max(0, 3 - text.count)) + text
    }
}
