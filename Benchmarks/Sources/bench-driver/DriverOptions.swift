import BenchSupport

/// `bench-driver`'s arguments. `Benchmarks/run` passes the environment it set up (ports,
/// nginx's PID, the CA, folders); the rest come from the person running it.
struct DriverOptions {
    var quick = false
    var repetitions: Int?
    var workloads: [String]?
    var clients = ["ferry", "ferry-loop", "ferry-cli", "ahc", "urlsession", "curl", "c"]
    var timeoutSeconds: Double?
    var binDirectory = ""
    var curl = "curl"
    var caFile = ""
    var workDirectory = ""
    var resultsDirectory = ""
    var ports: [Workload.Server: Int] = [:]
    var statusPort = 0
    var nginxPID: Int32 = 0
    var handshakeLog = ""
    /// nginx's root: W8's document is read from it, W9 uploads a file of it.
    var wwwDirectory = ""
    /// W9's upload server (`bench-sink`).
    var sinkPort = 0
    var sinkPID: Int32 = 0
    var note = ""

    static let usage = """
        usage: Benchmarks/run [--quick] [--reps N] [--workloads W1,W3,…] [--clients ferry,ferry-loop,ferry-cli,ahc,urlsession,curl,c] [--timeout SECONDS]
        """

    /// Parses the arguments after the program name.
    /// - Throws: ``BenchError`` naming the bad or missing argument.
    init(arguments: [String]) throws(BenchError) {
        var reader = ArgumentReader(arguments)
        func list(_ flag: String) throws(BenchError) -> [String] {
            try reader.value(of: flag).split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
        }
        while let argument = reader.next() {
            switch argument {
            case "--quick": quick = true
            case "--reps": repetitions = try reader.number(of: argument, minimum: 1)
            case "--workloads": workloads = try list(argument).map { $0.uppercased() }
            case "--clients": clients = try list(argument).map { $0.lowercased() }
            case "--timeout": timeoutSeconds = Double(try reader.number(of: argument, minimum: 1))
            case "--bin-dir": binDirectory = try reader.value(of: argument)
            case "--curl": curl = try reader.value(of: argument)
            case "--ca": caFile = try reader.value(of: argument)
            case "--work-dir": workDirectory = try reader.value(of: argument)
            case "--results-dir": resultsDirectory = try reader.value(of: argument)
            case "--http-port": ports[.http] = try reader.number(of: argument, minimum: 1)
            case "--https-port": ports[.https] = try reader.number(of: argument, minimum: 1)
            case "--handshake-port": ports[.handshakes] = try reader.number(of: argument, minimum: 1)
            case "--status-port": statusPort = try reader.number(of: argument, minimum: 1)
            case "--nginx-pid": nginxPID = Int32(try reader.number(of: argument, minimum: 1))
            case "--handshake-log": handshakeLog = try reader.value(of: argument)
            case "--www-dir": wwwDirectory = try reader.value(of: argument)
            case "--sink-port": sinkPort = try reader.number(of: argument, minimum: 1)
            case "--sink-pid": sinkPID = Int32(try reader.number(of: argument, minimum: 1))
            case "--note": note = try reader.value(of: argument)
            case "-h", "--help": throw BenchError(Self.usage)
            default: throw BenchError("unknown argument \(argument)\n\(Self.usage)")
            }
        }
        let known = ["ferry", "ferry-loop", "ferry-cli", "ahc", "urlsession", "curl", "c"]
        if let unknown = clients.first(where: { !known.contains($0) }) {
            throw BenchError("unknown client \(unknown); the clients are \(known.joined(separator: ", "))")
        }
        guard !clients.isEmpty else { throw BenchError("--clients names no client") }
        guard nginxPID > 0, statusPort > 0, ports.count == 3, !caFile.isEmpty, !binDirectory.isEmpty,
              !workDirectory.isEmpty, !resultsDirectory.isEmpty, !handshakeLog.isEmpty, !wwwDirectory.isEmpty,
              sinkPort > 0, sinkPID > 0 else {
            throw BenchError("bench-driver is started by Benchmarks/run, which passes nginx's and bench-sink's ports and PIDs, the CA and nginx's root\n\(Self.usage)")
        }
        ports[.sink] = sinkPort
    }
}

extension String {
    /// The string without leading and trailing spaces.
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
