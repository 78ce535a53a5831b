/// Reads `--flag value` command lines one argument at a time, for the clients and the driver.
public struct ArgumentReader {
    private var iterator: IndexingIterator<[String]>

    /// Reads `arguments` (without the program name).
    public init(_ arguments: [String]) { iterator = arguments.makeIterator() }

    /// The next argument, or nil at the end.
    public mutating func next() -> String? { iterator.next() }

    /// The value that must follow `flag`.
    /// - Throws: ``BenchError`` when the arguments end first.
    public mutating func value(of flag: String) throws(BenchError) -> String {
        guard let value = iterator.next() else { throw BenchError("\(flag) needs a value") }
        return value
    }

    /// The whole number that must follow `flag`, at least `minimum`.
    /// - Throws: ``BenchError`` when it is missing, not a number, or too small.
    public mutating func number(of flag: String, minimum: Int = 0) throws(BenchError) -> Int {
        let text = try value(of: flag)
        guard let number = Int(text), number >= minimum else {
            throw BenchError("\(flag): \(text) is not a whole number of at least \(minimum)")
        }
        return number
    }
}
