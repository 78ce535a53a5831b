@testable import FerryWire
import HTTPTypes
import Testing

/// The parser's own buffers: a large head may grow them, and a connection kept for the next
/// request gives that memory back when the next response starts.
@Suite struct ResponseParserBufferTests {
    @Test func aLargeHeadsBuffersAreGivenBackForTheNextResponse() throws {
        var parser = ResponseParser()
        parser.expectResponse(to: .get)
        let long = Array("HTTP/1.1 200 OK\r\nX-Long: \(String(repeating: "v", count: 60_000))\r\n".utf8)
        let fields = (0..<3_000).map { "X-F\($0): v\r\n" }.joined()
        let rest = Array((fields + "Content-Length: 0\r\n\r\n").utf8)
        // The long line crosses two reads, so it goes through the line buffer.
        var sawHead = false
        for piece in [Array(long[..<30_000]), Array(long[30_000...]) + rest] {
            try piece.withUnsafeBytes { input in
                var index = 0
                while index < input.count || !sawHead {
                    let event = try parser.parse(input, from: &index)
                    if case .head(let head) = event {
                        sawHead = true
                        #expect(head.headerFields[HTTPField.Name("X-Long")!]?.count == 60_000)
                    }
                    if case .needMoreData = event { break }
                    if case .end = event { break }
                }
            }
        }
        #expect(sawHead)
        #expect(parser.lineBuffer.capacity >= 30_000, "the split line grew the buffer")
        parser.expectResponse(to: .get)
        #expect(parser.lineBuffer.capacity <= ResponseParser.keptBufferCapacity)
        #expect(parser.fieldLineOffsets.capacity * MemoryLayout<Int>.stride <= ResponseParser.keptBufferCapacity)
    }
}
