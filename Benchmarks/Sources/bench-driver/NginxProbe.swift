import BenchSupport
import Glibc

/// What nginx did during one client run: its worker's CPU (from /proc), connections accepted
/// and requests served (from its stub_status page), and for the handshake server, how many
/// connections resumed a TLS session (from that server's small access log).
struct NginxProbe {
    /// A reading taken before a run, to subtract from one taken after.
    struct Reading {
        var workerCPUSeconds: Double
        var accepted: Int
        var requests: Int
        var handshakeLogOffset: Int
    }

    /// The difference between two readings.
    struct Delta: Codable {
        var cpuSeconds: Double
        var connections: Int
        var requests: Int
        /// Requests logged by the handshake server, how many of them were on a resumed session,
        /// and how many did not use TLS 1.3 with TLS_AES_128_GCM_SHA256.
        var loggedRequests: Int
        var resumed: Int
        var otherCipher: Int
    }

    let workerPID: Int32
    let statusPort: Int
    let handshakeLog: String
    private let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Finds the single worker of the nginx master `masterPID`, waiting up to 5 s for the
    /// master to start it (its port answers before the worker exists).
    /// - Throws: ``BenchError`` when nginx has no single worker.
    init(masterPID: Int32, statusPort: Int, handshakeLog: String) throws(BenchError) {
        var pids: [Int32] = []
        let deadline = monotonicSeconds() + 5
        repeat {
            let children = readFile("/proc/\(masterPID)/task/\(masterPID)/children") ?? ""
            pids = children.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int32($0) }
            if pids.count == 1 { break }
            usleep(10_000)
        } while monotonicSeconds() < deadline
        guard pids.count == 1, let worker = pids.first else {
            throw BenchError("nginx master \(masterPID) has \(pids.count) workers, expected 1 (worker_processes 1)")
        }
        workerPID = worker
        self.statusPort = statusPort
        self.handshakeLog = handshakeLog
    }

    /// Reads nginx's counters now.
    /// - Throws: ``BenchError`` when the worker or the status page cannot be read.
    func read() throws(BenchError) -> Reading {
        let (accepted, requests) = try stubStatus()
        return Reading(workerCPUSeconds: try workerCPU(), accepted: accepted, requests: requests,
                       handshakeLogOffset: Int(fileSize(handshakeLog) ?? 0))
    }

    /// The change since `before`, not counting the status request made by this reading.
    /// `expectedLogLines` lets the log catch up: nginx logs a request after its last byte left.
    func delta(since before: Reading, expectedLogLines: Int) throws(BenchError) -> Delta {
        var lines: [Substring] = []
        let deadline = monotonicSeconds() + 2
        repeat {
            lines = (readFile(handshakeLog, from: before.handshakeLogOffset) ?? "").split(separator: "\n")
            if lines.count >= expectedLogLines { break }
            usleep(10_000)
        } while monotonicSeconds() < deadline
        let after = try read()
        return Delta(
            cpuSeconds: after.workerCPUSeconds - before.workerCPUSeconds,
            connections: after.accepted - before.accepted - 1,
            requests: after.requests - before.requests - 1,
            loggedRequests: lines.count,
            resumed: lines.filter { $0.hasPrefix("r") }.count,
            otherCipher: lines.filter { !$0.contains(" TLSv1.3 TLS_AES_128_GCM_SHA256 ") }.count)
    }

    /// utime + stime of the worker.
    private func workerCPU() throws(BenchError) -> Double {
        try Self.processCPU(workerPID, ticksPerSecond: ticksPerSecond, name: "nginx")
    }

    /// utime + stime of process `pid` (all its threads), from /proc/PID/stat (fields 14 and 15,
    /// in clock ticks).
    static func processCPU(_ pid: Int32, ticksPerSecond: Double, name: String) throws(BenchError) -> Double {
        guard let stat = readFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else {
            throw BenchError("cannot read /proc/\(pid)/stat: is \(name) still running?")
        }
        // After "pid (comm)" come the fields from 3 (state) on; utime is field 14.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw BenchError("unexpected /proc/\(pid)/stat: \(stat)")
        }
        return (user + system) / ticksPerSecond
    }

    /// Accepted connections and handled requests from nginx's stub_status page, fetched with a
    /// blocking HTTP/1.0 request on 127.0.0.1.
    private func stubStatus() throws(BenchError) -> (accepted: Int, requests: Int) {
        let text = try Self.fetch(port: statusPort, path: "/status")
        // "Active connections: 1 \nserver accepts handled requests\n 12 12 40 \nReading: …"
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
        guard let header = lines.firstIndex(where: { $0.contains("server accepts handled requests") }),
              header + 1 < lines.count else {
            throw BenchError("unexpected nginx status page: \(text)")
        }
        let numbers = lines[header + 1].split(separator: " ").compactMap { Int($0) }
        guard numbers.count == 3 else { throw BenchError("unexpected nginx status counters: \(lines[header + 1])") }
        return (numbers[0], numbers[2])
    }

    /// The whole answer (head and body) to `GET path` on 127.0.0.1:`port`, over HTTP/1.0 with
    /// a blocking socket (5 s receive timeout).
    static func fetch(port: Int, path: String) throws(BenchError) -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            throw BenchError("cannot reach 127.0.0.1:\(port)\(path): \(String(cString: strerror(errno)))")
        }
        let request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
