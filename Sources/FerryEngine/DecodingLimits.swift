/// Bounds on Content-Encoding decoding, so a decompression bomb cannot exhaust memory.
public struct DecodingLimits: Sendable, Hashable {
    /// The most decoded bytes one body may produce (`nil`: no limit beyond the ratio).
    public var maxDecodedBytes: Int64?
    /// The most decoded bytes per encoded byte, checked once ``ratioGraceBytes`` are decoded.
    public var maxExpansionRatio: Int
    /// Decoded bytes allowed before the ratio applies (small bodies compress very well).
    public var ratioGraceBytes: Int64
    /// The most stacked encodings (`Content-Encoding: gzip, gzip, …`) one body may declare.
    public var maxStackedEncodings: Int

    /// Creates limits; the defaults are Ferry's.
    public init(
        maxDecodedBytes: Int64? = nil,
        maxExpansionRatio: Int = 1_000,
        ratioGraceBytes: Int64 = 1 << 20,
        maxStackedEncodings: Int = 5
    ) {
        self.maxDecodedBytes = maxDecodedBytes
        self.maxExpansionRatio = maxExpansionRatio
        self.ratioGraceBytes = ratioGraceBytes
        self.maxStackedEncodings = maxStackedEncodings
    }

    /// Ferry's defaults: ratio 1000:1 after the first MiB, at most 5 stacked encodings
    /// (urllib3's bound), no absolute size cap.
    public static let `default` = DecodingLimits()
}
