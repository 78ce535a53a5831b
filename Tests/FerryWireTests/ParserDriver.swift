import Foundation
import FerryWire
import HTTPTypes
import Testing

/// Everything a parse produced, in a form that can be compared across ways of splitting input.
struct Transcript: Equatable, CustomStringConvertible {
    /// One response: its head, all body bytes concatenated, and its trailers.
    struct Message: Equatable {
        var head: ResponseHead
        var body: [UInt8] = []
        var trailers = HTTPFields()
        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    var messages: [Message] = []
    /// Bytes left after a 101 / CONNECT head, which belong to the new protocol.
    var leftover: [UInt8] = []
    /// The error that stopped parsing, if any.
    var error: HTTPParseError?

    var description: String {
        let heads = messages.map { "\($0.head.status.code) \($0.head.framing) keepAlive=\($0.head.keepAlive) body=\($0.bodyText.debugDescription)" }
        return "Transcript(\(heads), error: \(error.map(String.init(describing:)) ?? "none"))"
    }
}

/// Drives a ``ResponseParser`` over bytes delivered in pieces, the way the engine does.
enum ParserDriver {
    /// Parses `bytes` delivered as the pieces between `splits` (sorted offsets). After each
    /// `.end` it expects another response, unless the last head switched protocols; at the end
    /// of input an `incompleteHead` at offset 0 after a complete message is a clean close.
    static func run(
        _ bytes: [UInt8],
        splits: [Int] = [],
        method: HTTPRequest.Method = .get,
        limits: ParserLimits = .default
    ) -> Transcript {
        var parser = ResponseParser(limits: limits)
        parser.expectResponse(to: method)
        var transcript = Transcript()
        var current: Transcript.Message?
        var upgraded = false
        let bounds = [0] + splits + [bytes.count]
        do {
            for (start, end) in zip(bounds, bounds.dropFirst()) where !upgraded {
                let piece = Array(bytes[start..<end])
                try piece.withUnsafeBytes { input in
                    var index = 0
                    while true {
                        let event = try parser.parse(input, from: &index)
                        switch event {
                        case .needMoreData:
                            #expect(index == input.count)
                            return
                        case .head(let head):
                            #expect(current == nil)
                            current = Transcript.Message(head: head)
                        case .body(let range):
                            #expect(!range.isEmpty)
                            current?.body.append(contentsOf: input[range])
                        case .end(let trailers):
                            guard var message = current else {
                                Issue.record("end without head")
                                return
                            }
                            message.trailers = trailers
                            transcript.messages.append(message)
                            current = nil
                            let code = message.head.status.code
                            if code == 101 || (method == .connect && (200...299).contains(code)) {
                                upgraded = true
                                transcript.leftover = Array(bytes[(start + index)...])
                                return
                            }
                            parser.expectResponse(to: method)
                        }
                    }
                }
            }
            if !upgraded, case .end(let trailers) = try parser.inputEnded(), var message = current {
                message.trailers = trailers
                transcript.messages.append(message)
            }
        } catch let error as HTTPParseError {
            let cleanClose = error.kind == .incompleteHead && error.offset == 0 && current == nil
                && !transcript.messages.isEmpty
            if !cleanClose { transcript.error = error }
        } catch {
            Issue.record("unexpected error type \(error)")
        }
        return transcript
    }

    /// Parses `bytes` whole, one byte at a time and split in two at every offset; expects the
    /// same transcript every way and returns it.
    @discardableResult
    static func runAllSplits(
        _ bytes: [UInt8],
        method: HTTPRequest.Method = .get,
        limits: ParserLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Transcript {
        let whole = run(bytes, method: method, limits: limits)
        let bytewise = run(bytes, splits: bytes.isEmpty ? [] : Array(1..<bytes.count), method: method, limits: limits)
        #expect(bytewise == whole, "one byte at a time", sourceLocation: sourceLocation)
        for offset in 0...bytes.count {
            let split = run(bytes, splits: [offset], method: method, limits: limits)
            if split != whole {
                Issue.record("split at \(offset): \(split) != \(whole)", sourceLocation: sourceLocation)
                break
            }
        }
        return whole
    }

    /// The bytes of `Fixtures/<name>.http`.
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "http", subdirectory: "Fixtures"))
        return [UInt8](try Data(contentsOf: url))
    }
}

/// The UTF-8 bytes of `string`, for writing raw responses inline.
func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }
