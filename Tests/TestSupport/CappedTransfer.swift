/// The figures the bandwidth-cap tests share: a cap slow enough that its effect shows, a body
/// large enough to be held back many times, and the least time the cap allows for it.
public enum CappedTransfer {
    /// 40 kB/s: a burst of 4,000 bytes, then 800-byte quanta 20 ms apart.
    public static let rate: Int64 = 40_000
    /// The body: 60,000 bytes take at least (60,000 − 4,000) / 40,000 = 1.4 s under the cap.
    public static let size = 60_000
    /// What a test asserts, with room for the head bytes the download cap also counts: a lower
    /// bound only, which a loaded machine cannot break (how close the rate comes to its cap is
    /// the benchmark's figure).
    public static let atLeast = Duration.milliseconds(1_200)

    /// Runs `body` and returns its value and how long it took.
    public static func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try await body()
        return (value, clock.now - start)
    }
}
