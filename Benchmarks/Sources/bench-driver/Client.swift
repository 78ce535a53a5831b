import BenchSupport
/// A client under test and how to start it for a workload.
struct Client: Sendable {
    let name: String
    /// Builds the command line (program first) and extra environment for one run.
    let command: @Sendable (_ workload: Workload, _ run: RunContext) throws(BenchError) -> (argv: [String], environment: [String: String])

    /// What a run needs to know besides the workload.
    struct RunContext: Sendable {
        let url: String
        let caFile: String
        let downloadPath: String
        /// The file to upload (W9).
        let uploadPath: String
        /// A scratch file for the run (curl's config file).
        let scratchPath: String
    }

    /// A client of this package that speaks BenchSupport's command-line contract: the Swift
    /// clients (`bench-ferry`, `bench-ahc`, `bench-urlsession`) and the C floor (`bench-c`).
    static func contract(_ name: String, binary: String, environment: [String: String] = [:]) -> Client {
        Client(name: name) { workload, run throws(BenchError) in
            var argv = [binary, "--url", run.url, "--count", String(workload.requests),
                        "--concurrency", String(workload.concurrency),
                        "--body-bytes", String(workload.bodyBytes), "--mode", workload.mode]
            if workload.mode == "download" { argv += ["--output", run.downloadPath] }
            if workload.mode == "upload" { argv += ["--input", run.uploadPath] }
            if workload.server != .http { argv += ["--cacert", run.caFile] }
            if workload.connectionClose { argv.append("--connection-close") }
            if !workload.resumesSessions { argv.append("--no-resume") }
            if let rate = workload.limitRate { argv += ["--limit-rate", String(rate)] }
            return (argv, environment)
        }
    }

    /// Ferry's `ferry` command line, run exactly as curl is: one process per workload, every
    /// URL with its `output` in the same config file (`--config`), curl's `--write-out` line
    /// per transfer.
    static func ferryCLI(binary: String) -> Client {
        let curlLike = curl(binary: binary)
        return Client(name: "ferry-cli", command: curlLike.command)
    }

    /// The curl command line: one process per workload, every URL of it in a config file.
    /// A capped workload adds `--limit-rate` and the transfer's own time to each `--write-out`
    /// line (``writeOut(_:size:)``).
    static func curl(binary: String) -> Client {
        Client(name: "curl") { workload, run throws(BenchError) in
            let capped = workload.limitRate.map { ["--limit-rate", String($0)] } ?? []
            if workload.mode == "upload" {
                // W9, W11: curl's own multipart form, the file as the part "file"; the answer is dropped.
                return ([binary, "--silent", "--show-error", "--http1.1", "--form", "file=@\(run.uploadPath)",
                         "--output", "/dev/null", "--write-out", writeOut(workload, size: "size_upload")] + capped + [run.url], [:])
            }
            // One `url`/`output` pair per request; curl runs them in order on one keep-alive
            // connection, or 32 at a time with --parallel.
            var config = ""
            config.reserveCapacity(workload.requests * (run.url.count + 40))
            let output = workload.mode == "download" ? run.downloadPath : "/dev/null"
            for _ in 0..<workload.requests {
                config += "url = \"\(run.url)\"\noutput = \"\(output)\"\n"
            }
            try writeFile(run.scratchPath, config)
            var argv = [binary, "--silent", "--show-error", "--http1.1", "--config", run.scratchPath,
                        "--write-out", writeOut(workload, size: "size_download")] + capped
            if workload.server != .http { argv += ["--cacert", run.caFile] }
            if workload.concurrency > 1 { argv += ["--parallel", "--parallel-max", String(workload.concurrency)] }
            if workload.connectionClose { argv += ["--header", "Connection: close"] }
            if !workload.resumesSessions { argv.append("--no-sessionid") }
            return (argv, [:])
        }
    }

    /// curl's (and ferry's) `--write-out` line per transfer: `<status> <size>`, and for a capped
    /// workload ` <time_total>`, the seconds from the transfer's start to its last byte (what
    /// ``Verify/transferSeconds(client:workload:stdout:)`` reads).
    static func writeOut(_ workload: Workload, size: String) -> String {
        "%{http_code} %{\(size)}" + (workload.limitRate == nil ? "" : " %{time_total}") + "\\n"
    }
}
