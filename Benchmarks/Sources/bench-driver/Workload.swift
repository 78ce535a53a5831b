/// One of issue 5's workloads (and issue 18's W8 and W9, and the bandwidth cap's W10 and W11),
/// sized for a full or a `--quick` run.
struct Workload: Sendable {
    /// How a workload's headline figure is expressed.
    enum Figure: Sendable {
        /// Client CPU ms for the whole process (W0: start-up and one request).
        case cpuPerProcess
        /// Client CPU µs per request (W1, W2, W5, W6, W8).
        case cpuPerRequest
        /// Client CPU seconds per GiB, and MB/s (W3, W4, W9).
        case cpuPerGiB
        /// Peak RSS (W7); CPU per GiB is shown too.
        case peakRSS
        /// The rate a capped transfer achieved against its cap (``Workload/limitRate``): body
        /// bytes over the client's own time from first request to last byte (W10, W11). CPU per
        /// GiB is shown too, and is what Ferry/peer compares.
        case rate
    }

    /// Which nginx server a workload talks to.
    enum Server: Sendable {
        /// Plain HTTP.
        case http
        /// HTTPS, TLS 1.3 with TLS_AES_128_GCM_SHA256 only.
        case https
        /// The same HTTPS, on a server that logs whether each connection resumed a session.
        case handshakes
        /// `bench-sink`, W9's upload server (plain HTTP): reads and checks every byte.
        case sink
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
    /// The clients that can do this workload; nil: all. The others are skipped, not failed.
    var clients: Set<String>? = nil
    /// The cap, bytes per second, each client is asked to keep each transfer to (curl's
    /// `--limit-rate`, both directions); nil: none.
    var limitRate: Int64? = nil

    /// True when every request must arrive on a connection of its own (W5, W6).
    var newConnectionPerRequest: Bool { connectionClose }

    /// Whether `client` runs this workload.
    func applies(to client: String) -> Bool { clients?.contains(client) ?? true }

    /// W8's document: its name under nginx's root and its exact size.
    static let documentFile = "4k.json"
    static let documentBytes: Int64 = 4096

    static let kib: Int64 = 1024
    static let mib: Int64 = 1024 * 1024
    static let gib: Int64 = 1024 * 1024 * 1024

    /// The workloads, in order. `quick` scales counts and sizes down.
    static func all(quick: Bool) -> [Workload] {
        let large: (file: String, bytes: Int64) = quick ? ("16m.bin", 16 * mib) : ("1g.bin", gib)
        let largeTitle = quick ? "16 MiB" : "1 GiB"
        // W10/W11's cap: 16 MiB takes about 5.1 s at 3,200 KiB/s, about 1 s at --quick's 16 MiB/s.
        let cap: (bytesPerSecond: Int64, title: String) = quick ? (16 * mib, "16 MiB/s") : (3200 * kib, "3,200 KiB/s")
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
            // Issue 18: the manager layer. Decoding needs a JSON decoder, which curl, ferry-cli and
            // the C floor do not have.
            Workload(id: "W8", title: "\(quick ? "200" : "10,000") sequential GET 4 KiB JSON, decoded (Decodable)",
                     figure: .cpuPerRequest, server: .http, file: documentFile, bodyBytes: documentBytes,
                     requests: quick ? 200 : 10_000, concurrency: 1, mode: "decode",
                     connectionClose: false, resumesSessions: true,
                     clients: ["ferry", "ferry-loop", "ahc", "urlsession"]),
            // A multipart form builder: Ferry's MultipartFormData and curl's -F (AsyncHTTPClient and
            // URLSession have none; the ferry command line has no -F yet). The file is the sparse
            // one W3 downloads; bench-sink reads and checks the whole body.
            Workload(id: "W9", title: "multipart upload of a \(largeTitle) file (POST, -F)",
                     figure: .cpuPerGiB, server: .sink, file: large.file, bodyBytes: large.bytes,
                     requests: 1, concurrency: 1, mode: "upload",
                     connectionClose: false, resumesSessions: true,
                     clients: ["ferry", "ferry-loop", "curl"]),
            // The bandwidth cap (curl's --limit-rate): the figure is the rate each client achieved
            // against it. Clients with a cap only: Ferry's library (the task's cap for W10, the
            // form's throttle for W11), its command line and curl.
            Workload(id: "W10", title: "GET 16 MiB over HTTP capped at \(cap.title), body discarded",
                     figure: .rate, server: .http, file: "16m.bin", bodyBytes: 16 * mib,
                     requests: 1, concurrency: 1, mode: "stream",
                     connectionClose: false, resumesSessions: true,
                     clients: ["ferry", "ferry-cli", "curl"], limitRate: cap.bytesPerSecond),
            Workload(id: "W11", title: "multipart upload of a 16 MiB file capped at \(cap.title) (POST, -F)",
                     figure: .rate, server: .sink, file: "16m.bin", bodyBytes: 16 * mib,
                     requests: 1, concurrency: 1, mode: "upload",
                     connectionClose: false, resumesSessions: true,
                     clients: ["ferry", "ferry-cli", "curl"], limitRate: cap.bytesPerSecond),
        ]
    }
}
