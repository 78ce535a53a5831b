/// Values by `host:port` key, at most `capacity` of them, the one stored longest ago dropped
/// first. Not locked: its owner keeps it behind a `Locked` (a `Mutex`).
struct BoundedCache<Value> {
    private var values: [String: Value] = [:]
    /// Keys from the one stored longest ago to the newest.
    private var order: [String] = []
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The value stored under `key`, if any.
    subscript(key: String) -> Value? { values[key] }

    /// How many values are stored.
    var count: Int { values.count }

    /// Every value stored, in no particular order.
    var allValues: Dictionary<String, Value>.Values { values.values }

    /// Stores `value` under `key`, as the newest.
    /// - Returns: the values that left: the one it replaced, and the oldest when over capacity.
    mutating func store(_ value: Value, for key: String) -> [Value] {
        var left: [Value] = []
        if let old = values.updateValue(value, forKey: key) {
            left.append(old)
            order.removeAll { $0 == key }
        }
        order.append(key)
        while order.count > capacity {
            if let gone = values.removeValue(forKey: order.removeFirst()) { left.append(gone) }
        }
        return left
    }

    /// Forgets every value.
    /// - Returns: the values that were stored.
    mutating func removeAll() -> [Value] {
        let all = Array(values.values)
        values.removeAll()
        order.removeAll()
        return all
    }

    /// Forgets the value under `key`.
    /// - Returns: the value, if there was one.
    mutating func remove(_ key: String) -> Value? {
        guard let removed = values.removeValue(forKey: key) else { return nil }
        order.removeAll { $0 == key }
        return removed
    }
}

extension BoundedCache: Sendable where Value: Sendable {}
