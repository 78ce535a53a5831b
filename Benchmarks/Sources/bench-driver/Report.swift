import BenchSupport
import Foundation

/// The results of a run as a Markdown table and a JSON document.
struct Report {
    let options: DriverOptions
    let workloads: [Workload]
    let repetitions: Int
    let samples: [Sample]
    let summaries: [Summary]
    let failures: [String]
    let elapsedSeconds: Double

    /// Medians per client for one workload, with Ferry's ratio to each peer.
    static func summaries(for workload: Workload, clients: [String], samples: [Sample]) -> [Summary] {
        var result = clients.compactMap { client -> Summary? in
            let mine = samples.filter { $0.workload == workload.id && $0.client == client }
            return mine.isEmpty ? nil : Summary(workload: workload, client: client, samples: mine)
        }
        if let ferry = result.first(where: { $0.client == "ferry" }) {
            for index in result.indices where !result[index].client.hasPrefix("ferry") && result[index].figure > 0 {
                result[index].ferryRatio = ferry.figure / result[index].figure
            }
        }
        // The command line's peer is curl's command line: its row shows ferry-cli / curl.
        if let cli = result.firstIndex(where: { $0.client == "ferry-cli" }),
           let curl = result.first(where: { $0.client == "curl" }), curl.figure > 0 {
            result[cli].ferryRatio = result[cli].figure / curl.figure
        }
        return result
    }

    func markdown() -> String {
        var lines: [String] = []
        lines.append("Medians of \(repetitions) interleaved repetition(s)\(options.quick ? " — QUICK mode (scaled down; not a measurement)" : ""). "
            + "CPU is the client's user+sys from wait4; server CPU is nginx's worker's utime+stime (bench-sink's for W9 and W11); "
            + "Ferry/peer divides Ferry's headline figure (CPU, or peak RSS for W7) by the peer's: below 1 means Ferry uses less; "
            + "on the ferry-cli row (the `ferry` command line) it divides that row's figure by curl's. "
            + "ferry-loop is the Ferry client awaiting on the session's loop executor (Session.taskExecutor(for:)).")
        if !options.note.isEmpty { lines.append(""); lines.append(options.note) }
        lines.append("")
        lines.append("| workload | client | CPU | unit | wall | MB/s | peak RSS | server CPU | conns | resumed | Ferry/peer |")
        lines.append("|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|")
        for workload in workloads {
            var first = true
            for summary in summaries where summary.workload == workload.id {
                let label = first ? "**\(workload.id)** \(workload.title)" : ""
                first = false
                let cells = [
                    label,
                    summary.client,
                    Self.cpu(summary.cpuFigure, unit: summary.cpuUnit),
                    summary.cpuUnit,
                    String(format: "%.2f s", summary.wallSeconds),
                    summary.megabytesPerSecond.map { String(format: "%.0f", $0) } ?? "",
                    String(format: "%.1f MiB", Double(summary.maxRSSKiB) / 1024),
                    String(format: "%.2f s", summary.nginxCPUSeconds),
                    String(summary.connections),
                    summary.resumed.map(String.init) ?? "",
                    summary.ferryRatio.map { String(format: "%.2f", $0) } ?? (summary.client.hasPrefix("ferry") ? "—" : ""),
                ]
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
        }
        lines += rateLines()
        if !failures.isEmpty {
            lines.append("")
            lines.append("FAILED runs (left out of the medians):")
            failures.forEach { lines.append("- \($0)") }
        }
        return lines.joined(separator: "\n")
    }

    private static func cpu(_ value: Double, unit: String) -> String {
        if unit == "µs/req" {
            return value >= 100 ? Int(value.rounded()).formatted(.number.grouping(.automatic)) : String(format: "%.1f", value)
        }
        return String(format: "%.2f", value)
    }

    private struct Document: Encodable {
        let date: String
        let quick: Bool
        let repetitions: Int
        let note: String
        let elapsedSeconds: Double
        let summaries: [Summary]
        let samples: [Sample]
        let failures: [String]
    }

    /// Writes `bench-<timestamp>.md` and `.json` into `directory` (created if missing).
    /// - Throws: What the file system throws.
    func write(to directory: String) throws -> (markdown: String, json: String) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let now = Date()
        let stamp = now.formatted(.iso8601.year().month().day().dateSeparator(.omitted).time(includingFractionalSeconds: false).timeSeparator(.omitted))
        let name = "bench-\(stamp)\(options.quick ? "-quick" : "")"
        let markdownPath = "\(directory)/\(name).md"
        let jsonPath = "\(directory)/\(name).json"
        try Data((markdown() + "\n").utf8).write(to: URL(fileURLWithPath: markdownPath))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let document = Document(date: now.formatted(.iso8601), quick: options.quick, repetitions: repetitions,
                                note: options.note, elapsedSeconds: elapsedSeconds,
                                summaries: summaries, samples: samples, failures: failures)
        try encoder.encode(document).write(to: URL(fileURLWithPath: jsonPath))
        return (markdownPath, jsonPath)
    }
}
