import Ferry
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The soak itself: `inFlight` workers draw request indices until `requests` have run, each
/// request's fault and size drawn from the seed and its index; a watchdog stops the process
/// when a request outlives the hang limit.
final class Soak: Sendable {
    /// How one request ended.
    enum Outcome: Hashable, Sendable, CustomStringConvertible {
        case body
        case wrongBody(String)
        case failed(NetworkError.Code)

        var description: String {
            switch self {
            case .body: "body"
            case .wrongBody(let what): "wrong body (\(what))"
            case .failed(let code): "\(code)"
            }
        }
    }

    /// What the report prints.
    struct Report {
        var text: String
        var passed: Bool
    }

    private struct State {
        var tallies: [Fault: [Outcome: Int]] = [:]
        /// The time each fault's requests took, added up.
        var time: [Fault: Duration] = [:]
        /// When each running request started, by index.
        var running: [Int: ContinuousClock.Instant] = [:]
        var unexpected: [String] = []
        var unexpectedCount = 0
        var longest: Duration = .zero
        var late = 0
        /// The peak RSS (KiB) and the thread count read after ``Soak/checkpoints`` requests.
        var peaks: [Int: (kibibytes: Int, threads: Int)] = [:]
    }

    /// The requests after which the peak RSS is first read (the issue's 10,000).
    static let warmUp = 10_000
    /// When the peak RSS is read, to show how it grew.
    static let checkpoints: Set = [warmUp, 20_000, 50_000, 100_000, 200_000, 500_000]

    private let options: SoakOptions
    private let next = Atomic(0)
    private let completed = Atomic(0)
    private let state = Mutex(State())

    init(options: SoakOptions) {
        self.options = options
    }

    /// Runs every request through `manager` (which the soak does not keep: once it is
    /// released, its descriptors must be too).
    func run(through manager: HTTPSessionManager) async {
        let watchdog = Task { await watch() }
        await withDiscardingTaskGroup { workers in
            for _ in 0..<options.inFlight {
                workers.addTask { await self.work(manager) }
            }
        }
        watchdog.cancel()
    }

    private func work(_ manager: HTTPSessionManager) async {
        while true {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < options.requests else { return }
            await request(index, manager)
        }
    }

    private func request(_ index: Int, _ manager: HTTPSessionManager) async {
        var draws = SplitMix64(seed: options.seed &* 0x1_0000_0001 &+ UInt64(index))
        let fault = Fault.drawn(Int(draws.next() % 10_000))
        let size = max(fault == .cut ? 2 : 0, Int(draws.next() % 16_385))
        let begin = ContinuousClock.now
        state.withLock { $0.running[index] = begin }
        let outcome: Outcome
        var detail = ""
        do {
            let (object, response) = try await manager.get("f/\(fault.rawValue)/\(size)")
            let body = object as? Data ?? Data()
            outcome = body.count == size && Self.isPattern(body)
                ? .body : .wrongBody("status \(response.statusCode), \(body.count) of \(size) bytes")
        } catch {
            outcome = .failed(error.code)
            detail = ": \(error)"
        }
        let took = ContinuousClock.now - begin
        let expected = fault.allowedFailures.map { allowed in
            if case .failed(let code) = outcome { allowed.contains(code) } else { false }
        } ?? (outcome == .body)
        state.withLock { state in
            state.running[index] = nil
            state.tallies[fault, default: [:]][outcome, default: 0] += 1
            state.longest = max(state.longest, took)
            state.time[fault, default: .zero] += took
            if took > options.timeout * 2 + .seconds(1) { state.late += 1 }
            if !expected {
                state.unexpectedCount += 1
                if state.unexpected.count < 10 { state.unexpected.append("request \(index) (\(fault.rawValue), \(size) bytes): \(outcome)\(detail)") }
            }
        }
        let done = completed.wrappingAdd(1, ordering: .relaxed).newValue
        if Self.checkpoints.contains(done) {
            let peak = (ProcessFigures.peakResidentKiB(), ProcessFigures.threads())
            state.withLock { $0.peaks[done] = peak }
        }
    }

    /// Byte i of every body is (i * 31 + 7) & 0xFF.
    private static func isPattern(_ body: Data) -> Bool {
        body.withUnsafeBytes { bytes in
            var index = 0
            var mismatch = false
            for byte in bytes {
                mismatch = mismatch || byte != UInt8(truncatingIfNeeded: index &* 31 &+ 7)
                index += 1
            }
            return !mismatch
        }
    }

    /// Every second: a progress line every 100,000 requests, and the hang check.
    private func watch() async {
        let started = ContinuousClock.now
        var reported = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(250))
            let done = completed.load(ordering: .relaxed)
            if done / 100_000 > reported {
                reported = done / 100_000
                let seconds = (ContinuousClock.now - started) / .seconds(1)
                ProcessFigures.printError("bench-soak: \(done) requests in \(Int(seconds)) s, RSS "
                    + "\(ProcessFigures.residentKiB() / 1024) MiB, \(ProcessFigures.openDescriptors()) descriptors")
            }
            let now = ContinuousClock.now
            let stuck = state.withLock { state in state.running.filter { now - $0.value > options.hangLimit } }
            if let (index, since) = stuck.min(by: { $0.value < $1.value }) {
                let report = self.report(elapsed: now - started, baselineDescriptors: nil,
                                         endDescriptors: ProcessFigures.openDescriptors(),
                                         endPeakKiB: ProcessFigures.peakResidentKiB())
                print(report.text)
                print("FAIL: request \(index) still running after \(now - since) (\(stuck.count) past the hang limit)")
                exit(1)
            }
        }
    }

    /// The figures, and PASS or FAIL with every bar missed (`failures`: the caller's own).
    func report(elapsed: Duration, baselineDescriptors: Int?, endDescriptors: Int, endPeakKiB: Int,
                failures extra: [String] = []) -> Report {
        let state = state.withLock { $0 }
        let done = completed.load(ordering: .relaxed)
        let seconds = Self.seconds(elapsed)
        var lines = ["bench-soak: \(done) of \(options.requests) requests, \(options.inFlight) in flight, seed \(options.seed), "
                     + "timeout \(options.timeout): \(Self.fixed(seconds, 1)) s (\(Int(Double(done) / max(seconds, 0.001))) requests/s)"]
        lines.append("  fault       requests   mean ms  outcomes")
        for fault in Fault.allCases {
            let outcomes = state.tallies[fault] ?? [:]
            let total = outcomes.values.reduce(0, +)
            let listed = outcomes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let mean = total == 0 ? 0 : Self.seconds(state.time[fault] ?? .zero) * 1000 / Double(total)
            lines.append("  " + fault.rawValue.rightPadded(to: 10) + String(total).leftPadded(to: 10)
                         + Self.fixed(mean, 1).leftPadded(to: 10) + "  " + listed)
        }
        var failures = extra
        lines.append("  unexpected outcomes: \(state.unexpectedCount)")
        lines += state.unexpected.map { "    \($0)" }
        if state.unexpectedCount > 0 { failures.append("\(state.unexpectedCount) unexpected outcome(s)") }
        let longest = Self.seconds(state.longest)
        lines.append("  longest request: \(Self.fixed(longest, 2)) s; \(state.late) longer than twice the timeout plus 1 s")
        if state.late > 0 { failures.append("\(state.late) request(s) ran past twice their timeout plus 1 s") }
        if let baselineDescriptors {
            lines.append("  open descriptors: \(baselineDescriptors) before the session, \(endDescriptors) after it was invalidated and released")
            if endDescriptors != baselineDescriptors { failures.append("descriptors \(endDescriptors), baseline \(baselineDescriptors)") }
        }
        if let first = state.peaks[Self.warmUp]?.kibibytes {
            let growth = endPeakKiB - first
            lines.append("  peak RSS: \(Self.mebibytes(first)) after \(Self.warmUp) requests, \(Self.mebibytes(endPeakKiB)) at the end "
                         + "(\(growth >= 0 ? "+" : "")\(growth) KiB; the bar is 2,048)")
            let path = state.peaks.sorted { $0.key < $1.key }.map { "\($0.key): \(Self.mebibytes($0.value.kibibytes)) (\($0.value.threads) threads)" }
            lines.append("    after " + path.joined(separator: ", ") + "; end: \(Self.mebibytes(endPeakKiB))")
            if growth > 2048 { failures.append("peak RSS grew \(growth) KiB after the first \(Self.warmUp) requests") }
        } else {
            lines.append("  peak RSS: \(Self.mebibytes(endPeakKiB)) (fewer than \(Self.warmUp) requests: no growth figure)")
        }
        if done < options.requests { failures.append("\(options.requests - done) request(s) never ended") }
        lines.append(failures.isEmpty ? "PASS" : "FAIL: " + failures.joined(separator: "; "))
        return Report(text: lines.joined(separator: "\n"), passed: failures.isEmpty)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func mebibytes(_ kibibytes: Int) -> String {
        "\(fixed(Double(kibibytes) / 1024, 1)) MiB"
    }

    private static func fixed(_ value: Double, _ places: Int) -> String {
        let scale = Double((0..<places).reduce(1) { result, _ in result * 10 })
        let rounded = (value * scale).rounded() / scale
        return String(rounded)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }

    fileprivate func rightPadded(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
