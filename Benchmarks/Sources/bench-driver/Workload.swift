/// One of issue 5's workloads, sized for a full or a `--quick` run.
struct Workload: Sendable {
    /// How a workload's headline figure is expressed.
    enum Figure: Sendable {
        /// Client CPU ms for the whole process (W0: start-up and one request).
        case cpuPerProcess
        /// Client CPU µs per request (W1, W2, W5, W6).
        case cpuPerRequest
        /// Client CPU seconds per GiB, and MB/s (W3, W4).
        case cpuPerGiB
        /// Peak RSS (W7); CPU per GiB is shown too.
        case peakRSS
    }

    /// Which nginx server a workload talks to.
    enum Server: Sendable {
        /// Plain HTTP.
        case http
        /// HTTPS, TLS 1.3 with TLS_AES_128_GCM_SHA256 only.
        case https
        /// The same HTTPS, on a server that logs whether each connection resumed a session.
        case handshakes
    }

    let id: String
    let title: String
    let figure: Figure
    let server: Server
    /// The file served (under the nginx root) and its size.
    let file: String
    let bodyBytes: Int64
    let requests: Int
    let concurrency: Int
    let mode: String
    let connectionClose: Bool
    let resumesSessions: Bool

    /// True when every request must arrive on a connection of its own (W5, W6).
    var newConnectionPerRequest: Bool { connectionClose }

    static let kib: Int64 = 1024
    static let mib: Int64 = 1024 * 1024
    static let gib: Int64 = 1024 * 1024 * 1024

    /// The workloads of issue 5, in order. `quick` scales counts and sizes down.
    static func all(quick: Bool) -> [Workload] {
        let large: (file: String, bytes: Int64) = quick ? ("16m.bin", 16 * mib) : ("1g.bin", gib)
        let largeTitle = quick ? "16 MiB" : "1 GiB"
        return [
            // Not one of issue 5's workloads: what starting the process and one request cost each
            // client, to read the per-request figures of the others against.
            Workload(id: "W0", title: "start-up and 1 GET 1 KiB (reference)",
                     figure: .cpuPerProcess, server: .http, file: "1k.bin", bodyBytes: kib,
                     requests: 1, concurrency: 1, mode: "memory",
                     connectionClose: false, resumesSessions: true),
            Workload(id: "W1", title: "\(quick ? "200" : "10,000") sequential GET 1 KiB, keep-alive",
                     figure: .cpuPerRequest, server: .http, file: "1k.bin", bodyBytes: kib,
                     requests: quick ? 200 : 10_000, concurrency: 1, mode: "memory",
                     connectionClose: false, resumesSessions: true),
            Workload(id: "W2", title: "\(quick ? "400" : "20,000") GET 1 KiB, 32 in flight",
                     figure: .cpuPerRequest, server: .http, file: "1k.bin", bodyBytes: kib,
                     requests: quick ? 400 : 20_000, concurrency: 32, mode: "memory",
                     connectionClose: false, resumesSessions: true),
            Workload(id: "W3", title: "GET \(largeTitle) over HTTP, body discarded",
                     figure: .cpuPerGiB, server: .http, file: large.file, bodyBytes: large.bytes,
                     requests: 1, concurrency: 1, mode: "stream",
                     connectionClose: false, resumesSessions: true),
            Workload(id: "W4", title: "GET \(largeTitle) over HTTPS (TLS 1.3, AES-128-GCM), body discarded",
                     figure: .cpuPerGiB, server: .https, file: large.file, bodyBytes: large.bytes,
                     requests: 1, concurrency: 1, mode: "stream",
                     connectionClose: false, resumesSessions: true),
            Workload(id: "W5", title: "\(quick ? 20 : 500) sequential HTTPS GET 1 KiB, new connection each, full handshake",
                     figure: .cpuPerRequest, server: .handshakes, file: "1k.bin", bodyBytes: kib,
                     requests: quick ? 20 : 500, concurrency: 1, mode: "memory",
                     connectionClose: true, resumesSessions: false),
            Workload(id: "W6", title: "\(quick ? 20 : 500) sequential HTTPS GET 1 KiB, new connection each, resumption allowed",
                     figure: .cpuPerRequest, server: .handshakes, file: "1k.bin", bodyBytes: kib,
                     requests: quick ? 20 : 500, concurrency: 1, mode: "memory",
                     connectionClose: true, resumesSessions: true),
            Workload(id: "W7", title: "download \(largeTitle) over HTTP streamed to a file",
                     figure: .peakRSS, server: .http, file: large.file, bodyBytes: large.bytes,
                     requests: 1, concurrency: 1, mode: "download",
                     connectionClose: false, resumesSessions: true),
        ]
    }
}
