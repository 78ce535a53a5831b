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
        maxLineLength: Int = 8 * 1024,
        maxHeaderBytes: Int = 64 * 1024,
        maxFieldCount: Int = 100,
        maxChunkExtensionBytes: Int = 16 * 1024,
        maxTrailerBytes: Int = 16 * 1024
    ) {
        self.maxLineLength = maxLineLength
        self.maxHeaderBytes = maxHeaderBytes
        self.maxFieldCount = maxFieldCount
        self.maxChunkExtensionBytes = maxChunkExtensionBytes
        self.maxTrailerBytes = maxTrailerBytes
    }

    /// Ferry's defaults: 8 KiB lines, 64 KiB header section, 100 fields, 16 KiB chunk
    /// extensions and trailers.
    public static let `default` = ParserLimits()
}
