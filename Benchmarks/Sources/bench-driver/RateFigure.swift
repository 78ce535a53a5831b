import Foundation

/// W10's and W11's figure: the rate one capped transfer achieved, against its cap. The time is
/// the client's own, from its first request to its last byte, so process start-up is not in it.
struct RateFigure: Codable {
    /// The cap the client was given, bytes per second.
    var capBytesPerSecond: Int64
    /// The body bytes moved (for an upload: the file's; the multipart framing around it is a
    /// few hundred bytes more).
    var bytes: Int64
    /// The client's time for them.
    var seconds: Double
    /// `bytes / seconds`.
    var achievedBytesPerSecond: Double
    /// How far the achieved rate is from the cap, in percent of the cap: negative below it.
    var deviationPercent: Double

    init(capBytesPerSecond: Int64, bytes: Int64, seconds: Double) {
        self.capBytesPerSecond = capBytesPerSecond
        self.bytes = bytes
        self.seconds = seconds
        achievedBytesPerSecond = Double(bytes) / seconds
        deviationPercent = (achievedBytesPerSecond / Double(capBytesPerSecond) - 1) * 100
    }

    /// Whether the achieved rate is within `percent` of the cap, either way.
    func isWithin(percent: Double) -> Bool { abs(deviationPercent) <= percent }

    /// `3,180 KiB/s, −0.6%`.
    var text: String { "\(Self.kibPerSecond(achievedBytesPerSecond)), \(deviationText)" }

    /// `−0.6%`, `+1.2%` (a true minus sign), or `0.0%`.
    var deviationText: String {
        let tenths = (deviationPercent * 10).rounded()
        let sign = tenths < 0 ? "−" : tenths > 0 ? "+" : ""
        return sign + String(format: "%.1f%%", abs(tenths) / 10)
    }

    /// A rate in whole KiB/s with thousands separators: `3,200 KiB/s`.
    static func kibPerSecond(_ bytesPerSecond: Double) -> String { kib(bytesPerSecond) + " KiB/s" }

    /// Bytes as whole KiB with thousands separators: `3,200`.
    static func kib(_ bytes: Double) -> String {
        Int((bytes / 1024).rounded()).formatted(.number.grouping(.automatic))
    }
}
