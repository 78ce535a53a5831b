import FerryIO

/// Body bytes read straight from the transport into the array a consumer will own, gathered
/// over several reads until the array is full.
///
/// A large body arrives in bursts (a loopback socket, or a TLS peer, often has only a few
/// dozen KiB ready per wake-up). Handing each burst over on its own costs a consumer wake-up,
/// a thread switch, per burst; filling one array first hands over a quarter-MiB at a time.
/// The connection bounds how long bytes may wait here (``HTTP1Connection``'s flush timer), so a
/// slow body still reaches its consumer promptly.
struct DirectBodyChunk {
    /// The bytes gathered so far.
    private var bytes: [UInt8] = []
    /// The size the chunk is handed over at: never more than the framing said was body.
    private var target = 0
    /// The reads that brought bytes into this chunk: more than one means the transport ran
    /// dry before the chunk was full.
    private(set) var reads = 0

    /// No bytes are waiting.
    var isEmpty: Bool { bytes.isEmpty }

    /// Bytes still to read before the chunk is full; 0 when no chunk is started.
    var room: Int { target - bytes.count }

    /// Starts a chunk of `size` bytes (at most the body bytes the framing still promises), in
    /// `reusing` if it is empty and large enough, else in a new array.
    mutating func start(size: Int, reusing spare: [UInt8]?) {
        precondition(bytes.isEmpty && size > 0, "a chunk is started empty and not empty-sized")
        target = size
        if let spare, spare.isEmpty, spare.capacity >= size {
            bytes = spare
        } else {
            bytes.reserveCapacity(size)
        }
    }

    /// Reads up to `limit` bytes (at most ``room``) from `transport` into the chunk's free
    /// capacity. Only a started chunk with room reads, and `limit` must be positive: a read of
    /// zero bytes would look like the end of input.
    /// - Returns: What the transport read; the bytes are part of the chunk.
    mutating func read(from transport: Transport, upTo limit: Int = .max) throws(TransportFailure) -> IOResult<Int> {
        precondition(room > 0 && limit > 0, "a chunk reads only while it has room, and something")
        var outcome: Result<IOResult<Int>, TransportFailure> = .success(.wouldBlock)
        bytes.append(addingCapacity: min(room, limit)) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                do throws(TransportFailure) {
                    let result = try transport.read(into: UnsafeMutableRawBufferPointer(buffer))
                    if case .processed(let count) = result {
                        initialized = count
                        if count > 0 { reads += 1 }
                    }
                    outcome = .success(result)
                } catch {
                    outcome = .failure(error)
                }
            }
        }
        return try outcome.get()
    }

    /// Hands the gathered bytes over and leaves the chunk empty. Bytes filling less than a
    /// quarter of their array (a timer flush on a slow link, a capped read into a larger reused
    /// array, a body's short tail) are copied into an array of their own size, so chunks a
    /// consumer buffers never hold much more memory than bytes.
    mutating func take() -> [UInt8] {
        defer {
            bytes = []
            target = 0
            reads = 0
        }
        return bytes.count < bytes.capacity / 4 ? bytes.withUnsafeBytes { [UInt8]($0) } : bytes
    }
}
