import BenchSupport
import Glibc

/// What W9's upload server (`bench-sink`) did during one client run: its CPU (from /proc) and
/// the counters of its `GET /stats` line: connections accepted, upload requests, uploads that
/// passed its multipart check, body bytes and file bytes received, non-zero file bytes (the
/// file uploaded is sparse: all zeros) and requests it refused.
struct SinkProbe {
    /// The counters at one moment.
    struct Reading {
        var cpuSeconds: Double
        var counters: [String: Int64]
    }

    /// The difference between two readings: the server's share of a ``Sample`` and what
    /// arrived.
    struct Delta {
        var server: NginxProbe.Delta
        var uploads: Int64
        var bodyBytes: Int64
        var fileBytes: Int64
        var nonzero: Int64
        var errors: Int64
    }

    let pid: Int32
    let port: Int
    private let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    init(pid: Int32, port: Int) {
        self.pid = pid
        self.port = port
    }

    /// Reads the server's counters now.
    /// - Throws: ``BenchError`` when the server or its counters cannot be read.
    func read() throws(BenchError) -> Reading {
        let cpu = try NginxProbe.processCPU(pid, ticksPerSecond: ticksPerSecond, name: "bench-sink")
        let answer = try NginxProbe.fetch(port: port, path: "/stats")
        guard let line = answer.split(whereSeparator: \.isNewline).last(where: { $0.hasPrefix("connections=") }) else {
            throw BenchError("unexpected answer from bench-sink's /stats: \(answer.suffix(300))")
        }
        var counters: [String: Int64] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let number = Int64(parts[1]) { counters[String(parts[0])] = number }
        }
        let keys = ["connections", "requests", "uploads", "bytes", "file_bytes", "nonzero", "errors"]
        guard keys.allSatisfy({ counters[$0] != nil }) else { throw BenchError("incomplete bench-sink /stats line: \(line)") }
        return Reading(cpuSeconds: cpu, counters: counters)
    }

    /// The change since `before`, not counting the connection of this reading's own request.
    func delta(since before: Reading) throws(BenchError) -> Delta {
        let after = try read()
        func change(_ key: String) -> Int64 { (after.counters[key] ?? 0) - (before.counters[key] ?? 0) }
        let server = NginxProbe.Delta(cpuSeconds: after.cpuSeconds - before.cpuSeconds,
                                      connections: Int(change("connections")) - 1, requests: Int(change("requests")),
                                      loggedRequests: 0, resumed: 0, otherCipher: 0)
        return Delta(server: server, uploads: change("uploads"), bodyBytes: change("bytes"),
                     fileBytes: change("file_bytes"), nonzero: change("nonzero"), errors: change("errors"))
    }
}
