// SECURITY.md's "Limits" table against the code: every row's default is the value Ferry really
// uses, and every row is checked here, so neither a changed default nor a new row can leave the
// table wrong without this test failing.
@testable import FerryEngine
@testable import FerryIO
import FerryReachability
@testable import FerrySession
import FerryTLS
import FerryWire
import Foundation
import Testing

@Suite("SECURITY.md's limits table")
struct LimitsTableTests {
    /// The figures each row's default cell must hold, in order, rendered from the code.
    static var expected: [String: [String]] {
        let configuration = SessionConfiguration.default
        let parser = configuration.parserLimits
        let decoding = configuration.decodingLimits
        let bandwidthCap = BandwidthLimiter(bytesPerSecond: .max).bytesPerSecond
        let unthrottled = configuration.maximumDownloadBytesPerSecond == nil && configuration.maximumUploadBytesPerSecond == nil
        return [
            "Request timeout: no byte of progress for this long fails a request": [seconds(configuration.timeoutIntervalForRequest)],
            "Resource timeout: a whole task, redirects and retries included": [seconds(configuration.timeoutIntervalForResource)],
            "Connect timeout (resolution, TCP, TLS handshake)": [seconds(configuration.timeoutIntervalForConnect)],
            "Connections per scheme, host and port": [count(configuration.httpMaximumConnectionsPerHost)],
            "A kept-alive connection parked unused": [seconds(configuration.connectionIdleTimeout)],
            "Redirects followed per task": [count(configuration.httpMaximumRedirects)],
            "A response line, and each field line": [bytes(parser.maxLineLength)],
            "A response head": [bytes(parser.maxHeaderBytes)],
            "Fields in a head": [count(parser.maxFieldCount)],
            "Chunk extensions, per chunk": [bytes(parser.maxChunkExtensionBytes)],
            "Trailers": [bytes(parser.maxTrailerBytes)],
            "Decoded size of a content-coded body": [decoding.maxDecodedBytes.map { bytes(Int($0)) } ?? "none"],
            "Decoded bytes per encoded byte": [count(decoding.maxExpansionRatio), bytes(Int(decoding.ratioGraceBytes))],
            "Stacked content codings": [count(decoding.maxStackedEncodings)],
            "A body collected in memory (`data(for:)`)": [configuration.maximumResponseBodySize.map { bytes(Int($0)) } ?? "none"],
            "A streamed body held for a consumer that does not read (`bytes(for:)`)": [bytes(ResponseBodyBuffer.highWaterMark)],
            "A connection's read buffer": [bytes(HTTP1Connection.readBufferSize)],
            "The response body kept in a `NetworkError`": [bytes(NetworkError.maxResponseDataBytes)],
            "Bodies above this wait for `100 Continue`": [configuration.expectContinueThreshold.map { bytes(Int($0)) } ?? "none"],
            "... and wait for it at most": [seconds(configuration.expectContinueTimeout)],
            "Bandwidth": [unthrottled ? "none" : "a default cap", rate(bandwidthCap)],
            "Cookies in the jar": [count(CookieStorage.maximumCookieCount), count(CookieStorage.maximumCookiesPerDomain)],
            "A `Set-Cookie` field; fields read per response":
                [count(CookieStorage.maximumCookieFieldBytes) + " bytes", count(CookieStorage.maximumSetCookieFieldsPerResponse)],
            "A cookie's name and value; each attribute value":
                [count(Cookie.maximumNameAndValueBytes), count(Cookie.maximumAttributeValueBytes) + " bytes"],
            "A cookie's lifetime": [seconds(.seconds(SetCookieParser.maximumLifetime))],
            "A Netscape cookie file read; each of its lines":
                [bytes(CookieStorage.maximumCookieFileBytes), bytes(CookieStorage.maximumCookieFileLineBytes)],
            "Challenges in an authentication header; parameters in one":
                [count(HTTPAuthChallenge.maximumChallenges), count(HTTPAuthChallenge.maximumParameters)],
            "Answers to challenges per task; Digest `stale` retries":
                [count(TaskAuthentication.maximumAnswers), count(TaskAuthentication.maximumStaleRetries)],
            "TLS sessions kept for resumption; hosts whose trust was approved": [count(TLSClientContext.cacheCapacity)],
            "Buffers an event loop keeps from ended connections, for its next ones":
                [count(SpareBuffers.maximumPerSize), seconds(SpareBuffers.lifetime)],
            "Reachability: addresses watched per host; status updates buffered for an `AsyncStream`":
                [count(ReachabilityStateMachine.maxAddressesPerHost), count(NetworkReachabilityManager.statusUpdatesBufferLimit)],
        ]
    }

    @Test func everyRowIsChecked() throws {
        let rows = try Self.table()
        #expect(rows.count == Self.expected.count)
        let unchecked = rows.map(\.limit).filter { Self.expected[$0] == nil }
        #expect(unchecked.isEmpty, "rows this test does not check (add them to `expected`): \(unchecked)")
        let gone = Self.expected.keys.filter { key in !rows.contains { $0.limit == key } }
        #expect(gone.isEmpty, "checked limits missing from the table: \(gone)")
    }

    @Test func everyDefaultIsTheCodes() throws {
        for row in try Self.table() {
            guard let expected = Self.expected[row.limit] else { continue }
            #expect(Self.figures(in: row.defaultValue) == expected, "SECURITY.md, limit \"\(row.limit)\": its default says \"\(row.defaultValue)\"")
        }
    }

    @Test func everyNameInTheLastColumnIsDeclared() throws {
        let declarations = try Self.declarations()
        for row in try Self.table() {
            for name in Self.codeNames(in: row.whereToChange) {
                let components = name.split(separator: ".").map { String($0.prefix { $0 != "(" }) }
                if components.count == 2, let type = components.first, type.first?.isUppercase == true {
                    // `Type.member`: declared in Type's body or one of its extensions.
                    let declared = declarations.members[type, default: []].contains(components[1])
                    #expect(declared,
                            "SECURITY.md, limit \"\(row.limit)\": `\(name)`: Sources/ declares no \(components[1]) in \(type)")
                } else {
                    for identifier in components {
                        let declared = declarations.all.contains(identifier)
                        #expect(declared,
                                "SECURITY.md, limit \"\(row.limit)\": `\(name)`: Sources/ declares no \(identifier)")
                    }
                }
            }
        }
    }

    @Test func theFiguresAreReadAsWritten() {
        #expect(Self.figures(in: "none; a cap is at most 1 GB/s") == ["none", "1 GB/s"])
        #expect(Self.figures(in: "1,000, once past the first 1 MiB") == ["1,000", "1 MiB"])
        #expect(Self.figures(in: "8,190 bytes; 50") == ["8,190 bytes", "50"])
        #expect(Self.figures(in: "3,000; 180 per domain") == ["3,000", "180"])
        #expect(Self.figures(in: "256 KiB, mapped") == ["256 KiB"])
        #expect(Self.figures(in: "7 days") == ["7 days"])
        #expect(Self.figures(in: "16") == ["16"])
        #expect(Self.bytes(8190) == "8,190 bytes" && Self.bytes(1 << 20) == "1 MiB" && Self.bytes(16 * 1024) == "16 KiB")
        #expect(Self.seconds(.seconds(60)) == "60 s" && Self.seconds(.seconds(86_400 * 400)) == "400 days")
        #expect(Self.seconds(.milliseconds(1500)) == "1.5 s")
        #expect(Self.figures(in: "1.5 s") == ["1.5 s"])
    }

    // MARK: - Reading the table

    struct Row {
        var limit: String
        var defaultValue: String
        var whereToChange: String
    }

    /// The rows of the table under `## Limits` in SECURITY.md.
    static func table() throws -> [Row] {
        let text = try String(contentsOf: root.appendingPathComponent("SECURITY.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0 == "## Limits" }, "SECURITY.md has no \"## Limits\" section")
        let tableLines = lines[start...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        // The first two lines are the header and its rule.
        return tableLines.dropFirst(2).map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            return Row(limit: cells.count > 1 ? cells[1] : "", defaultValue: cells.count > 2 ? cells[2] : "",
                       whereToChange: cells.count > 3 ? cells[3] : "")
        }
    }

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The code names in backticks in a "where to change it" cell: `Type.member`, `.member`,
    /// `Type.function(label:)`; not `nil`.
    static func codeNames(in cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 && $0.element != "nil" }
            .map { String($0.element) }
    }

    /// The names declared in the Swift files under Sources/ (the word after `class`, `struct`,
    /// `enum`, `actor`, `protocol`, `extension`, `typealias`, `let`, `var`, `func` or `case`):
    /// all of them, and by the top-level type (or extension) whose lines they are in.
    static func declarations() throws -> (all: Set<String>, members: [String: Set<String>]) {
        let typeKeywords: Set<Substring> = ["class", "struct", "enum", "actor", "protocol", "extension"]
        let keywords = typeKeywords.union(["typealias", "let", "var", "func", "case"])
        let sources = root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var all = Set<String>()
        var members: [String: Set<String>] = [:]
        for case let file as URL in files where file.pathExtension == "swift" {
            var currentType: String?
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            where !line.drop(while: \.isWhitespace).hasPrefix("//") {
                let words = line.split { !($0.isLetter || $0.isNumber || $0 == "_") }
                for (keyword, name) in zip(words, words.dropFirst()) where keywords.contains(keyword) {
                    all.insert(String(name))
                    // A declaration that starts a line without indentation is a top-level one.
                    if typeKeywords.contains(keyword), line.first?.isWhitespace == false, !line.hasPrefix("//") {
                        currentType = String(name)
                    } else if let currentType {
                        members[currentType, default: []].insert(String(name))
                    }
                }
            }
        }
        return (all, members)
    }

    /// The figures in a default cell, in order: `none`, or a number (`1,000`) with its unit
    /// when it has one (`8 KiB`, `60 s`, `7 days`, `8,190 bytes`, `1 GB/s`).
    static func figures(in cell: String) -> [String] {
        let pattern = /none|\d+(?:,\d{3})*(?:\.\d+)?(?: (?:KiB|MiB|GiB|bytes|days|s|GB\/s)(?![A-Za-z]))?/
        return cell.matches(of: pattern).map { String($0.output) }
    }

    // MARK: - Rendering the code's values as the table writes them

    static func count(_ value: Int) -> String {
        let digits = String(value)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return grouped
    }

    static func bytes(_ value: Int) -> String {
        if value > 0, value % (1 << 30) == 0 { return "\(value >> 30) GiB" }
        if value > 0, value % (1 << 20) == 0 { return "\(value >> 20) MiB" }
        if value > 0, value % (1 << 10) == 0 { return "\(value >> 10) KiB" }
        return "\(count(value)) bytes"
    }

    static func seconds(_ value: Duration) -> String {
        let (whole, fraction) = value.components
        // A fraction is written out (`1.5 s`), never dropped, so it cannot pass for a whole second.
        guard fraction == 0 else { return "\(Double(whole) + Double(fraction) / 1e18) s" }
        return whole > 0 && whole % 86_400 == 0 ? "\(whole / 86_400) days" : "\(whole) s"
    }

    static func rate(_ bytesPerSecond: Int64) -> String {
        bytesPerSecond % 1_000_000_000 == 0 ? "\(bytesPerSecond / 1_000_000_000) GB/s" : "\(count(Int(bytesPerSecond))) bytes/s"
    }
}
