import FerryWire
import HTTPTypes

extension FuzzTarget {
    /// The response parser, a differential check: the events of the input parsed whole must be
    /// the events of the same input split at offsets the input itself chooses (its first bytes
    /// pick the split points), and the parser must end either way without trapping.
    static let responseParser = FuzzTarget(
        name: "response-parser",
        summary: "HTTP/1.1 response heads, bodies (Content-Length, chunked with trailers, close-delimited), interim responses; whole against split"
    ) { input in
        guard let first = input.first else { return }
        // The first byte: which method the response answers (HEAD has no body) and the
        // parser's limits; the next two: split points, as fractions of the rest.
        let method: HTTPRequest.Method = first & 1 == 0 ? .get : .head
        var limits = ParserLimits.default
        if first & 2 != 0 { limits.maxHeaderBytes = 512 }
        guard input.count >= 3 else { return }
        let body = UnsafeRawBufferPointer(rebasing: input[3...])
        let whole = ResponseParserTrace.events(of: body, splits: [], method: method, limits: limits)
        let a = Int(input[1]) * body.count / 256, b = Int(input[2]) * body.count / 256
        let split = ResponseParserTrace.events(of: body, splits: [min(a, b), max(a, b)], method: method, limits: limits)
        FuzzTarget.check(whole == split, "whole and split parses differ:\n\(whole)\n\(split)")
    }
}

/// What a parser reported for some input: its events (body bytes joined, so where the input
/// was split does not show), and how it ended.
enum ResponseParserTrace {
    enum Entry: Equatable, CustomStringConvertible {
        case head(status: Int, fields: Int, framing: String)
        case body([UInt8])
        case end(trailers: Int)
        case failed(String)
        case inputEnded(String)

        var description: String {
            switch self {
            case .head(let status, let fields, let framing): "head \(status) \(fields) fields \(framing)"
            case .body(let bytes): "body \(bytes.count) bytes"
            case .end(let trailers): "end \(trailers) trailers"
            case .failed(let error): "failed \(error)"
            case .inputEnded(let outcome): "input ended: \(outcome)"
            }
        }
    }

    /// Parses `input` in pieces cut at `splits` (offsets in order), then ends the input.
    static func events(of input: UnsafeRawBufferPointer, splits: [Int], method: HTTPRequest.Method,
                       limits: ParserLimits) -> [Entry] {
        var parser = ResponseParser(limits: limits)
        parser.expectResponse(to: method)
        var entries: [Entry] = []
        var start = 0
        for end in splits + [input.count] where end >= start {
            let piece = UnsafeRawBufferPointer(rebasing: input[start..<end])
            start = end
            var index = 0
            // Each call consumes input or reports an event; the bound keeps a parser that did
            // neither from looping here for ever (that would be a finding: it traps).
            var calls = 0
            while true {
                calls += 1
                FuzzTarget.check(calls <= piece.count + 4096, "the parser stopped making progress")
                let event: ResponseParser.Event
                do throws(HTTPParseError) {
                    event = try parser.parse(piece, from: &index)
                } catch {
                    entries.append(.failed("\(error.kind)"))
                    return entries
                }
                switch event {
                case .needMoreData:
                    break
                case .head(let head):
                    entries.append(.head(status: head.status.code, fields: head.headerFields.count, framing: "\(head.framing)"))
                    continue
                case .body(let range):
                    append(Array(piece[range]), to: &entries)
                    continue
                case .end(let trailers):
                    entries.append(.end(trailers: trailers.count))
                    // A response after the end needs another request: what follows is stray.
                    return entries
                }
                break
            }
        }
        do throws(HTTPParseError) {
            let event = try parser.inputEnded()
            entries.append(.inputEnded("\(event)"))
        } catch {
            entries.append(.inputEnded("\(error.kind)"))
        }
        return entries
    }

    private static func append(_ bytes: [UInt8], to entries: inout [Entry]) {
        if case .body(let earlier) = entries.last {
            entries[entries.count - 1] = .body(earlier + bytes)
        } else if !bytes.isEmpty {
            entries.append(.body(bytes))
        }
    }
}
