/// A benchmark failure, described in words for the run's log.
public struct BenchError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String

    /// Creates an error with its description.
    public init(_ description: String) { self.description = description }
}
