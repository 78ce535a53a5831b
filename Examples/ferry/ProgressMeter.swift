/// The progress meter's text and pacing, without any clock or terminal (so it can be tested).
///
/// A simple one-line cousin of curl's default meter: percentage (when the size is known),
/// bytes so far, total, and average speed, with sizes in curl's 5-character style
/// (`  218`, `1234k`, `12.3M`). ``ProgressReporter`` draws it on standard error.
struct ProgressMeter: Sendable, Equatable {
    /// Smallest gap between two draws: about four updates a second, as curl.
    static let interval = 0.25

    private var lastDraw: Double?

    init() {}

    /// Whether to redraw at `now` (seconds on any monotonic clock); records the draw if so.
    mutating func shouldDraw(at now: Double) -> Bool {
        if let lastDraw, now - lastDraw < Self.interval { return false }
        lastDraw = now
        return true
    }

    /// One meter line, without the leading carriage return.
    static func line(received: Int64, expected: Int64?, elapsed: Double) -> String {
        let percent: String
        if let expected, expected > 0 {
            let value = min(100, Double(received) * 100 / Double(expected))
            percent = pad(oneDecimal(value), to: 5) + "%"
        } else if expected == 0 {
            percent = "100.0%"
        } else {
            percent = "   --%"
        }
        let total = expected.map(size) ?? "   --"
        let speed = elapsed > 0 ? size(Int64(Double(received) / elapsed)) : size(0)
        return "\(percent) \(size(received)) of \(total)  \(speed)/s"
    }

    /// A byte count in at most five characters, as curl's meter prints sizes.
    static func size(_ bytes: Int64) -> String {
        let kilo: Int64 = 1024, mega = kilo * 1024, giga = mega * 1024, tera = giga * 1024
        switch bytes {
        case ..<100_000: return pad(String(bytes), to: 5)
        case ..<(10_000 * kilo): return pad(String(bytes / kilo) + "k", to: 5)
        case ..<(100 * mega): return pad(tenths(bytes, mega) + "M", to: 5)
        case ..<(10_000 * mega): return pad(String(bytes / mega) + "M", to: 5)
        case ..<(100 * giga): return pad(tenths(bytes, giga) + "G", to: 5)
        case ..<(10_000 * giga): return pad(String(bytes / giga) + "G", to: 5)
        default: return pad(String(bytes / tera) + "T", to: 5)
        }
    }

    /// `n / unit` with one decimal, truncated as curl does (12.39M prints as 12.3M).
    private static func tenths(_ value: Int64, _ unit: Int64) -> String {
        "\(value / unit).\((value % unit) * 10 / unit)"
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded(.down))
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func pad(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
