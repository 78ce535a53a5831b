// Deterministic payloads shared by the servers and the tests that check them.

/// The deterministic byte pattern every byte-producing route serves.
///
/// Byte `i` of a payload is `UInt8(i % 251)`. 251 is prime, so the pattern never lines up
/// with power-of-two buffer or chunk sizes: a dropped, duplicated or reordered chunk shows.
public enum TestBytes {
    /// The pattern's period.
    public static let period = 251

    /// The byte at absolute position `index` of the pattern.
    /// - Parameter index: a position, 0 or more.
    /// - Returns: `UInt8(index % 251)`.
    @inlinable
    public static func byte(at index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: index % 251)
    }

    /// `count` bytes of the pattern starting at position 0.
    /// - Parameter count: how many bytes, 0 or more.
    /// - Returns: `[0, 1, …, 250, 0, 1, …]` of length `count`.
    public static func pattern(count: Int) -> [UInt8] {
        pattern(from: 0, count: count)
    }

    /// `count` bytes of the pattern starting at absolute position `offset`
    /// (what a `Range: bytes=offset-` request should return).
    /// - Parameters:
    ///   - offset: the first position, 0 or more.
    ///   - count: how many bytes, 0 or more.
    /// - Returns: the pattern bytes `offset ..< offset + count`.
    public static func pattern(from offset: Int, count: Int) -> [UInt8] {
        precondition(offset >= 0 && count >= 0, "offset and count must not be negative")
        var bytes = [UInt8](repeating: 0, count: count)
        var value = offset % 251
        for index in 0..<count {
            bytes[index] = UInt8(truncatingIfNeeded: value)
            value = value == 250 ? 0 : value + 1
        }
        return bytes
    }

    /// Whether `bytes` equal the pattern starting at `offset`, without building a copy.
    /// - Parameters:
    ///   - bytes: bytes received from a server.
    ///   - offset: the absolute position of `bytes[0]`.
    /// - Returns: the index of the first wrong byte, or `nil` when every byte matches.
    public static func firstMismatch(in bytes: some Collection<UInt8>, offset: Int = 0) -> Int? {
        var value = offset % 251
        var index = 0
        for byte in bytes {
            if byte != UInt8(truncatingIfNeeded: value) { return index }
            value = value == 250 ? 0 : value + 1
            index += 1
        }
        return nil
    }
}
