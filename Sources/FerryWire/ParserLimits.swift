/// The bounds the response parser enforces, so a hostile or broken peer can never make Ferry
/// buffer without limit.
public struct ParserLimits: Sendable, Hashable {
    /// Longest status line or field line, in bytes, excluding CRLF.
    public var maxLineLength: Int
    /// Largest header section (status line, fields and line ends), in bytes.
    public var maxHeaderBytes: Int
    /// Most fields in one header section.
    public var maxFieldCount: Int
    /// Longest run of chunk extensions on one chunk-size line, in bytes.
    public var maxChunkExtensionBytes: Int
    /// Largest trailer section, in bytes.
    public var maxTrailerBytes: Int

    /// Creates limits; the defaults are Ferry's.
    public init(
        maxLineLength: Int = 100 * 1024,
        maxHeaderBytes: Int = 300 * 1024,
        maxFieldCount: Int = 5_000,
        maxChunkExtensionBytes: Int = 16 * 1024,
        maxTrailerBytes: Int = 16 * 1024
    ) {
        self.maxLineLength = maxLineLength
        self.maxHeaderBytes = maxHeaderBytes
        self.maxFieldCount = maxFieldCount
        self.maxChunkExtensionBytes = maxChunkExtensionBytes
        self.maxTrailerBytes = maxTrailerBytes
    }

    /// Ferry's defaults: 100 KiB lines, a 300 KiB header section and 5,000 fields (curl's
    /// bounds: what it accepts, a server may send, say a 10 KiB Content-Security-Policy or a
    /// hundred `Set-Cookie` fields), 16 KiB chunk extensions and trailers. A connection parses
    /// one head at a time, and what a large one grew is given back when the next response
    /// starts (`ResponseParser.expectResponse(to:)`).
    public static let `default` = ParserLimits()
}
