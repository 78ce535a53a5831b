/// The capped workloads' own table (W10, W11): the rate each client achieved against the cap.
extension Report {
    /// The target for a capped transfer: the achieved rate within this many percent of
    /// the cap. A figure to read, not a check: a run outside it still counts.
    static let rateTolerancePercent = 10.0

    /// The Markdown lines of the caps table; none when no capped workload ran.
    func rateLines() -> [String] {
        let rows = workloads.flatMap { workload in
            summaries.filter { $0.workload == workload.id && $0.rate != nil }.enumerated().map { index, summary in
                (label: index == 0 ? "**\(workload.id)** \(workload.title)" : "", summary: summary)
            }
        }
        guard !rows.isEmpty else { return [] }
        let tolerance = Self.rateTolerancePercent
        var lines = [
            "",
            "Bandwidth caps: the achieved rate is body bytes over the client's own time from its first request to its "
                + "last byte (the Swift clients' `seconds=`, curl's and ferry's `%{time_total}`), so process start-up is "
                + "not in it; the percentage is its distance from the cap. The target is within \(Int(tolerance))% "
                + "(a figure, not a check).",
            "",
            "| workload | client | cap | achieved (median) | each repetition | within ±\(Int(tolerance))% |",
            "|---|---|--:|--:|---|--:|",
        ]
        for (label, summary) in rows {
            guard let rate = summary.rate, let rates = summary.rates else { continue }
            let each = rates.map { "\(RateFigure.kib($0.achievedBytesPerSecond)) (\($0.deviationText))" }
            let within = rates.filter { $0.isWithin(percent: tolerance) }.count
            lines.append("| " + [
                label, summary.client, RateFigure.kibPerSecond(Double(rate.capBytesPerSecond)), rate.text,
                each.joined(separator: ", "), "\(within) of \(rates.count)",
            ].joined(separator: " | ") + " |")
        }
        return lines
    }
}
