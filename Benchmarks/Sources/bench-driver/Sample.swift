/// One measured client run: what the kernel said about the client and what nginx did meanwhile.
struct Sample: Codable {
    var workload: String
    var client: String
    var repetition: Int
    var userSeconds: Double
    var systemSeconds: Double
    var wallSeconds: Double
    var maxRSSKiB: Int
    var bodyBytes: Int64
    var requests: Int
    var nginx: NginxProbe.Delta
    /// For a capped workload (W10, W11): the rate achieved against the cap.
    var rate: RateFigure?

    var cpuSeconds: Double { userSeconds + systemSeconds }
}

/// The medians of one client's samples on one workload, and the figures derived from them.
struct Summary: Codable {
    var workload: String
    var client: String
    var repetitions: Int
    var cpuSeconds: Double
    var userSeconds: Double
    var systemSeconds: Double
    var wallSeconds: Double
    var maxRSSKiB: Int
    var nginxCPUSeconds: Double
    var connections: Int
    var resumed: Int?
    /// The headline figure (µs per request, s per GiB, or MiB of peak RSS) and its unit.
    var figure: Double
    var unit: String
    /// µs per request, or s per GiB, whatever the headline is.
    var cpuFigure: Double
    var cpuUnit: String
    var megabytesPerSecond: Double?
    /// Ferry's headline figure divided by this client's (nil for Ferry itself).
    var ferryRatio: Double?
    /// For a capped workload: the rate at the median time, and every run's in repetition order.
    var rate: RateFigure?
    var rates: [RateFigure]?

    init(workload: Workload, client: String, samples: [Sample]) {
        self.workload = workload.id
        self.client = client
        repetitions = samples.count
        cpuSeconds = median(samples.map(\.cpuSeconds))
        userSeconds = median(samples.map(\.userSeconds))
        systemSeconds = median(samples.map(\.systemSeconds))
        wallSeconds = median(samples.map(\.wallSeconds))
        maxRSSKiB = Int(median(samples.map { Double($0.maxRSSKiB) }))
        nginxCPUSeconds = median(samples.map(\.nginx.cpuSeconds))
        connections = Int(median(samples.map { Double($0.nginx.connections) }))
        resumed = workload.server == .handshakes ? Int(median(samples.map { Double($0.nginx.resumed) })) : nil
        let bytes = Double(workload.bodyBytes) * Double(workload.requests)
        switch workload.figure {
        case .cpuPerProcess:
            cpuFigure = cpuSeconds * 1000
            cpuUnit = "ms/run"
            megabytesPerSecond = nil
        case .cpuPerRequest:
            cpuFigure = cpuSeconds / Double(workload.requests) * 1_000_000
            cpuUnit = "µs/req"
            megabytesPerSecond = nil
        case .cpuPerGiB, .peakRSS, .rate:
            cpuFigure = cpuSeconds / (bytes / Double(Workload.gib))
            cpuUnit = "s/GiB"
            megabytesPerSecond = bytes / wallSeconds / 1_000_000
        }
        if case .peakRSS = workload.figure {
            figure = Double(maxRSSKiB) / 1024
            unit = "MiB RSS"
        } else {
            figure = cpuFigure
            unit = cpuUnit
        }
        let measured = samples.sorted { $0.repetition < $1.repetition }.compactMap(\.rate)
        if let first = measured.first {
            rates = measured
            rate = RateFigure(capBytesPerSecond: first.capBytesPerSecond, bytes: first.bytes, seconds: median(measured.map(\.seconds)))
        }
    }
}

/// The median (the mean of the middle two for an even count); 0 for no values.
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
