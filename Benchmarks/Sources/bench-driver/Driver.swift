import BenchSupport
import CBenchShims
import Foundation

/// Runs every selected client on every selected workload, interleaved (A B C D A B C D …), each
/// as its own measured process; checks every run's bodies; writes the Markdown table and JSON.
@main
struct Driver {
    let options: DriverOptions
    let probe: NginxProbe
    let sink: SinkProbe
    /// W8's document checksum, decoded here from the file nginx serves (nil without W8).
    let documentChecksum: Int64?
    let clients: [Client]
    let workloads: [Workload]
    let repetitions: Int
    let timeoutSeconds: Double

    static func main() {
        // Progress lines must show as they happen, also when the output goes to a file or a pipe.
        bench_line_buffer_stdout()
        do {
            let driver = try Driver(options: DriverOptions(arguments: Array(CommandLine.arguments.dropFirst())))
            exit(driver.run() ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("bench: \(error)\n".utf8))
            exit(2)
        }
    }

    init(options: DriverOptions) throws(BenchError) {
        self.options = options
        probe = try NginxProbe(masterPID: options.nginxPID, statusPort: options.statusPort, handshakeLog: options.handshakeLog)
        let all = Workload.all(quick: options.quick)
        if let wanted = options.workloads {
            if let unknown = wanted.first(where: { id in !all.contains { $0.id == id } }) {
                throw BenchError("unknown workload \(unknown); the workloads are W0 to W11")
            }
            workloads = all.filter { wanted.contains($0.id) }
        } else {
            workloads = all
        }
        sink = SinkProbe(pid: options.sinkPID, port: options.sinkPort)
        documentChecksum = try workloads.contains { $0.mode == "decode" }
            ? Self.documentChecksum("\(options.wwwDirectory)/\(Workload.documentFile)") : nil
        repetitions = options.repetitions ?? (options.quick ? 1 : 5)
        timeoutSeconds = options.timeoutSeconds ?? (options.quick ? 120 : 600)
        let bin = options.binDirectory
        clients = options.clients.map { name in
            switch name {
            case "ferry": return .contract("ferry", binary: "\(bin)/bench-ferry")
            case "ferry-loop":
                return .contract("ferry-loop", binary: "\(bin)/bench-ferry", environment: ["FERRY_BENCH_EXECUTOR": "loop"])
            case "ferry-cli": return .ferryCLI(binary: "\(bin)/ferry")
            case "ahc": return .contract("ahc", binary: "\(bin)/bench-ahc")
            case "urlsession": return .contract("urlsession", binary: "\(bin)/bench-urlsession")
            case "c": return .contract("c", binary: "\(bin)/bench-c")
            default: return .curl(binary: options.curl)
            }
        }
    }

    /// Runs everything; returns false when any run failed.
    func run() -> Bool {
        var samples: [Sample] = []
        var failures: [String] = []
        let started = monotonicSeconds()
        print("bench: \(workloads.count) workload(s) × \(clients.count) client(s) × \(repetitions) repetition(s)\(options.quick ? " (quick)" : ""), timeout \(Int(timeoutSeconds)) s per run")
        var runs = 0
        for workload in workloads {
            let skipped = clients.filter { !workload.applies(to: $0.name) }.map(\.name)
            print("\(workload.id) \(workload.title)" + (skipped.isEmpty ? "" : " (does not apply to \(skipped.joined(separator: ", ")))"))
            for repetition in 1...repetitions {
                for client in clients where workload.applies(to: client.name) {
                    runs += 1
                    do {
                        let sample = try measure(client, workload, repetition)
                        samples.append(sample)
                        print(String(format: "  %@ #%d %-10@ cpu %.3f s  wall %.3f s  rss %.1f MiB  server %.2f s  conns %d",
                                     workload.id, repetition, client.name, sample.cpuSeconds, sample.wallSeconds,
                                     Double(sample.maxRSSKiB) / 1024, sample.nginx.cpuSeconds, sample.nginx.connections)
                            + (sample.rate.map { String(format: "  rate %@ in %.3f s", $0.text, $0.seconds) } ?? ""))
                    } catch {
                        let message = "\(workload.id) \(client.name) #\(repetition): \(error)"
                        print("  FAIL \(message)")
                        failures.append(message)
                    }
                }
            }
        }
        let summaries = workloads.flatMap { workload in
            Report.summaries(for: workload, clients: clients.map(\.name), samples: samples)
        }
        let report = Report(options: options, workloads: workloads, repetitions: repetitions,
                            samples: samples, summaries: summaries, failures: failures,
                            elapsedSeconds: monotonicSeconds() - started)
        let markdown = report.markdown()
        print("")
        print(markdown)
        do {
            let paths = try report.write(to: options.resultsDirectory)
            print("bench: wrote \(paths.markdown) and \(paths.json)")
        } catch {
            print("bench: cannot write the results: \(error)")
            failures.append("results not written: \(error)")
        }
        if failures.isEmpty {
            print("bench: all \(runs) runs returned the right bodies")
        } else {
            print("bench: \(failures.count) of \(runs) runs FAILED:")
            failures.forEach { print("  \($0)") }
        }
        return failures.isEmpty
    }

    /// One client run on one workload, measured and checked.
    private func measure(_ client: Client, _ workload: Workload, _ repetition: Int) throws(BenchError) -> Sample {
        guard let port = options.ports[workload.server] else { throw BenchError("no port for \(workload.server)") }
        let scheme = workload.server == .http || workload.server == .sink ? "http" : "https"
        let base = "\(options.workDirectory)/\(workload.id)-\(client.name)"
        // bench-sink takes uploads at /upload; nginx serves the workload's file.
        let path = workload.server == .sink ? "upload" : workload.file
        let context = Client.RunContext(
            url: "\(scheme)://127.0.0.1:\(port)/\(path)", caFile: options.caFile,
            downloadPath: "\(base).download", uploadPath: "\(options.wwwDirectory)/\(workload.file)",
            scratchPath: "\(base).curlrc")
        let (argv, environment) = try client.command(workload, context)
        let child = ChildRun(launcher: "\(options.binDirectory)/bench-launch", argv: argv, environment: environment, stdoutPath: "\(base).out",
                             stderrPath: "\(base).err", timeoutSeconds: timeoutSeconds)
        defer {
            unlink(context.downloadPath)
            unlink(context.scratchPath)
        }
        unlink(context.downloadPath)

        let before = try probe.read()
        let sinkBefore = workload.server == .sink ? try sink.read() : nil
        let outcome = try child.run()
        let expectedLogLines = workload.server == .handshakes ? workload.requests : 0
        // The server's share of the sample: nginx's, or bench-sink's for an upload.
        var server = try probe.delta(since: before, expectedLogLines: expectedLogLines)
        let upload = try sinkBefore.map { reading throws(BenchError) in try sink.delta(since: reading) }
        if let upload { server = upload.server }

        let stdout = readFile(child.stdoutPath) ?? ""
        let stderrTail = String((readFile(child.stderrPath) ?? "").suffix(600))
        if outcome.timedOut {
            throw BenchError("killed after the \(Int(timeoutSeconds)) s timeout; stderr: \(stderrTail)")
        }
        guard outcome.exitCode == 0 else {
            let how = outcome.signal != 0 ? "killed by signal \(outcome.signal)" : "exit status \(outcome.exitCode)"
            throw BenchError("\(how); stderr: \(stderrTail)")
        }
        let bytes = try Verify.bodies(client: client.name, workload: workload, stdout: stdout, documentChecksum: documentChecksum)
        let seconds = try Verify.transferSeconds(client: client.name, workload: workload, stdout: stdout)
        if let upload { try Verify.upload(workload: workload, sink: upload) }
        if workload.mode == "download" {
            let size = fileSize(context.downloadPath) ?? -1
            guard size == workload.bodyBytes else {
                throw BenchError("the downloaded file has \(size) bytes, expected \(workload.bodyBytes)")
            }
        }
        try Verify.connections(workload: workload, nginx: server)
        return Sample(
            workload: workload.id, client: client.name, repetition: repetition,
            userSeconds: outcome.userSeconds, systemSeconds: outcome.systemSeconds,
            wallSeconds: outcome.wallSeconds, maxRSSKiB: outcome.maxRSSKiB,
            bodyBytes: bytes, requests: workload.requests, nginx: server,
            rate: workload.limitRate.flatMap { cap in seconds.map { RateFigure(capBytesPerSecond: cap, bytes: bytes, seconds: $0) } })
    }

    /// The checksum of W8's document, from Foundation's JSONDecoder here; the file must have
    /// exactly ``Workload/documentBytes`` bytes.
    /// - Throws: ``BenchError`` when the file is missing, has another size or does not verify.
    static func documentChecksum(_ path: String) throws(BenchError) -> Int64 {
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchError("cannot read \(path)") }
        guard data.count == Workload.documentBytes else {
            throw BenchError("\(path) has \(data.count) bytes, expected \(Workload.documentBytes)")
        }
        do {
            return Int64(try JSONDecoder().decode(BenchDocument.self, from: data).verified())
        } catch {
            throw BenchError("\(path) does not verify: \(error)")
        }
    }
}
