import BenchSupport

/// `bench-driver`'s arguments. `Benchmarks/run` passes the environment it set up (ports,
/// nginx's PID, the CA, folders); the rest come from the person running it.
struct DriverOptions {
    var quick = false
    var repetitions: Int?
    var workloads: [String]?
    var clients = ["ferry", "ahc", "urlsession", "curl"]
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
    var note = ""

    static let usage = """
        usage: Benchmarks/run [--quick] [--reps N] [--workloads W1,W3,…] [--clients ferry,ahc,urlsession,curl] [--timeout SECONDS]
        """

    /// Parses the arguments after the program name.
    /// - Throws: ``BenchError`` naming the bad or missing argument.
    init(arguments: [String]) throws(BenchError) {
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws(BenchError) -> String {
            guard let next = iterator.next() else { throw BenchError("\(flag) needs a value\n\(Self.usage)") }
            return next
        }
        func number(_ flag: String) throws(BenchError) -> Int {
            let text = try value(flag)
            guard let parsed = Int(text), parsed > 0 else { throw BenchError("\(flag): not a positive number: \(text)") }
            return parsed
        }
        func list(_ flag: String) throws(BenchError) -> [String] {
            try value(flag).split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
        }
        while let argument = iterator.next() {
            switch argument {
            case "--quick": quick = true
            case "--reps": repetitions = try number(argument)
            case "--workloads": workloads = try list(argument).map { $0.uppercased() }
            case "--clients": clients = try list(argument).map { $0.lowercased() }
            case "--timeout": timeoutSeconds = Double(try number(argument))
            case "--bin-dir": binDirectory = try value(argument)
            case "--curl": curl = try value(argument)
            case "--ca": caFile = try value(argument)
            case "--work-dir": workDirectory = try value(argument)
            case "--results-dir": resultsDirectory = try value(argument)
            case "--http-port": ports[.http] = try number(argument)
            case "--https-port": ports[.https] = try number(argument)
            case "--handshake-port": ports[.handshakes] = try number(argument)
            case "--status-port": statusPort = try number(argument)
            case "--nginx-pid": nginxPID = Int32(try number(argument))
            case "--handshake-log": handshakeLog = try value(argument)
            case "--note": note = try value(argument)
            case "-h", "--help": throw BenchError(Self.usage)
            default: throw BenchError("unknown argument \(argument)\n\(Self.usage)")
            }
        }
        let known = ["ferry", "ahc", "urlsession", "curl"]
        if let unknown = clients.first(where: { !known.contains($0) }) {
            throw BenchError("unknown client \(unknown); the clients are \(known.joined(separator: ", "))")
        }
        guard !clients.isEmpty else { throw BenchError("--clients names no client") }
        guard nginxPID > 0, statusPort > 0, ports.count == 3, !caFile.isEmpty, !binDirectory.isEmpty,
              !workDirectory.isEmpty, !resultsDirectory.isEmpty, !handshakeLog.isEmpty else {
            throw BenchError("bench-driver is started by Benchmarks/run, which passes nginx's ports, PID and the CA\n\(Self.usage)")
        }
    }
}

extension String {
    /// The string without leading and trailing spaces.
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
