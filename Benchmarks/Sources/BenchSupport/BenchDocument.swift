/// W8's JSON document (`4k.json`, written by `Benchmarks/run`): a page of 30 records of the
/// kind an HTTP API returns. Every client decodes it into these values with its JSONDecoder;
/// this one definition is shared, so all decode exactly the same shape.
///
/// The document carries a `checksum` of its records (see ``computedChecksum``): a client
/// recomputes it from what it decoded (``verified()``) and reports the sum over its requests,
/// which the driver compares with its own decoding of the file. A client that skips decoding,
/// or decodes only part of a document, cannot report the right sum.
public struct BenchDocument: Decodable, Sendable {
    /// One record of the page.
    public struct Item: Decodable, Sendable {
        public let id: Int
        public let name: String
        public let price: Double
        public let active: Bool
        public let tags: [String]
        public let owner: Owner
    }

    /// A record's nested owner.
    public struct Owner: Decodable, Sendable {
        public let id: Int
        public let login: String
        public let staff: Bool
    }

    public let page: Int
    public let total: Int
    public let checksum: Int
    public let items: [Item]
    public let note: String

    /// The checksum of the decoded records, as `run` computes it when it writes the file: per
    /// record, `id·7 + owner.id + 3·active + 5·owner.staff + round(price·100)` plus the UTF-8
    /// lengths of its name, its owner's login and its tags.
    public var computedChecksum: Int {
        var sum = 0
        for item in items {
            sum += item.id * 7 + item.owner.id + (item.active ? 3 : 0) + (item.owner.staff ? 5 : 0)
            sum += Int((item.price * 100).rounded())
            sum += item.name.utf8.count + item.owner.login.utf8.count
            for tag in item.tags { sum += tag.utf8.count }
        }
        return sum
    }

    /// The document's checksum, once its record count and checksum agree with what was decoded.
    /// - Throws: ``BenchError`` naming the mismatch.
    public func verified() throws(BenchError) -> Int {
        guard items.count == total else { throw BenchError("decoded \(items.count) records, the document says \(total)") }
        let computed = computedChecksum
        guard computed == checksum else {
            throw BenchError("the decoded records sum to \(computed), the document's checksum is \(checksum)")
        }
        return checksum
    }
}
