import FerryWire
import HTTPTypes
import Testing

/// Mutated fixtures: whatever the bytes, the parser must finish without trapping, and the
/// outcome (events or error) must not depend on how the bytes were split.
@Suite struct ResponseParserRobustnessTests {
    /// SplitMix64: a small seeded generator, so every run tests the same inputs.
    private struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static let fixtures = [
        "content-length", "keep-alive-then-close", "http10", "chunked-trailers", "interim", "no-body",
        "until-close", "te-and-cl", "set-cookies", "empty-reason", "bare-lf",
    ]

    /// Bytes that steer the parser into interesting states when dropped in anywhere.
    private static let interesting: [UInt8] = [0x00, 0x09, 0x0A, 0x0D, 0x20, 0x3A, 0x3B, 0x2C, 0x30, 0x46, 0x7F, 0xFF]

    private func mutate(_ input: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
            let byte = Self.interesting.randomElement(using: &generator) ?? 0
            switch Int.random(in: 0..<4, using: &generator) {
            case 0 where !bytes.isEmpty: bytes[position] = byte
            case 1: bytes.insert(byte, at: position)
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            default: bytes.removeLast(bytes.count - position)
            }
        }
        return bytes
    }

    @Test(arguments: fixtures)
    func mutationsAreSplitInvariant(_ name: String) throws {
        var generator = SeededGenerator(state: UInt64(name.utf8.count) &* 7919)
        let original = try ParserDriver.fixture(name)
        let limits = ParserLimits(maxLineLength: 40, maxHeaderBytes: 120, maxFieldCount: 4, maxChunkExtensionBytes: 8, maxTrailerBytes: 30)
        for _ in 0..<40 {
            let input = mutate(original, using: &generator)
            ParserDriver.runAllSplits(input, limits: limits)
            ParserDriver.runAllSplits(input, method: .head)
        }
    }

    @Test func endlessHeadIsRefusedAtTheLimit() {
        // A peer that never ends its line: refused once the limit is provably crossed.
        let input = bytes("HTTP/1.1 200 OK\r\nX-A: ") + [UInt8](repeating: 0x61, count: 110_000)
        let transcript = ParserDriver.run(input, splits: stride(from: 10_000, to: 110_000, by: 10_000).map { $0 })
        #expect(transcript.error == HTTPParseError(.fieldLineTooLong, offset: 17 + 100 * 1024))
    }

    @Test func endlessInterimResponsesNeverAccumulate() {
        var input: [UInt8] = []
        for _ in 0..<200 { input += bytes("HTTP/1.1 102 Processing\r\nX-A: 1\r\n\r\n") }
        input += bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        let transcript = ParserDriver.run(input)
        #expect(transcript.error == nil)
        #expect(transcript.messages.map(\.head.headerFields.count) == [1])
    }
}
