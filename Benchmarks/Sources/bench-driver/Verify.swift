import BenchSupport

/// Checks that a run did the work it was timed for: every body complete, every request served,
/// and new connections where the workload demands them.
enum Verify {
    /// The body bytes a client reported, checked against the workload.
    /// - Throws: ``BenchError`` naming what is missing or wrong.
    /// - Parameter documentChecksum: W8's document checksum as the driver decoded it: a
    ///   decoding client must report it times the requests.
    static func bodies(client: String, workload: Workload, stdout: String, documentChecksum: Int64?) throws(BenchError) -> Int64 {
        let expected = workload.bodyBytes * Int64(workload.requests)
        // A capped workload's lines end in the transfer's seconds (``transferSeconds(client:workload:stdout:)``).
        let writeOutFields = workload.limitRate == nil ? 2 : 3
        if (client == "curl" || client == "ferry-cli") && workload.mode == "upload" {
            // "<status> <bytes sent>": the form is the file and the multipart framing around it.
            // What arrived is bench-sink's to say (``upload(workload:sink:)``).
            let lines = stdout.split(separator: "\n")
            let fields = lines.first?.split(separator: " ") ?? []
            guard lines.count == 1, fields.count == writeOutFields, fields[0] == "200", let sent = Int64(fields[1]),
                  sent > workload.bodyBytes else {
                throw BenchError("\(client) reported \"\(stdout.prefix(200))\", expected \"200 <more than \(workload.bodyBytes)>\"")
            }
            return workload.bodyBytes
        }
        if client == "curl" || client == "ferry-cli" {
            // One "--write-out" line per transfer: "<status> <body bytes>".
            let lines = stdout.split(separator: "\n")
            guard lines.count == workload.requests else {
                throw BenchError("\(client) reported \(lines.count) transfers, expected \(workload.requests)")
            }
            var total: Int64 = 0
            for line in lines {
                let fields = line.split(separator: " ")
                guard fields.count == writeOutFields, fields[0] == "200", let size = Int64(fields[1]), size == workload.bodyBytes else {
                    throw BenchError("\(client) transfer \"\(line)\", expected \"200 \(workload.bodyBytes)\"")
                }
                total += size
            }
            return total
        }
        // "result requests=N bytes=B"
        guard let line = stdout.split(separator: "\n").last(where: { $0.hasPrefix("result ") }) else {
            throw BenchError("no result line on standard output: \(stdout.suffix(300))")
        }
        var fields: [Substring: Int64] = [:]
        for pair in line.dropFirst("result ".count).split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let number = Int64(parts[1]) { fields[parts[0]] = number }
        }
        guard fields["requests"] == Int64(workload.requests), fields["bytes"] == expected else {
            throw BenchError("the client reported \"\(line)\", expected requests=\(workload.requests) bytes=\(expected)")
        }
        if workload.mode == "decode" {
            guard let documentChecksum else { throw BenchError("the driver has no checksum of \(workload.file)") }
            let sum = documentChecksum * Int64(workload.requests)
            guard fields["checksum"] == sum else {
                throw BenchError("the client reported \"\(line)\", expected checksum=\(sum) (\(documentChecksum) per document decoded)")
            }
        }
        return expected
    }

    /// For a capped workload (W10, W11), the seconds the client itself timed from its first
    /// request to its last byte, so that its start-up does not count: the Swift clients'
    /// `seconds=` on the result line, or the sum of curl's and ferry's `%{time_total}` (the
    /// transfers run one after another). nil for an uncapped workload.
    /// - Throws: ``BenchError`` when a capped run did not report a positive time.
    static func transferSeconds(client: String, workload: Workload, stdout: String) throws(BenchError) -> Double? {
        guard workload.limitRate != nil else { return nil }
        var seconds: Double?
        if client == "curl" || client == "ferry-cli" {
            // "<status> <size> <time_total>" per transfer.
            let times = stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            seconds = times.count == workload.requests ? times.reduce(0, +) : nil
        } else if let line = stdout.split(separator: "\n").last(where: { $0.hasPrefix("result ") }),
                  let field = line.split(separator: " ").first(where: { $0.hasPrefix("seconds=") }) {
            seconds = Double(field.dropFirst("seconds=".count))
        }
        guard let seconds, seconds > 0 else {
            throw BenchError("\(client) reported no time for the capped transfer: \(stdout.suffix(300))")
        }
        return seconds
    }

    /// W9: bench-sink received one upload, well formed, with every byte of the file.
    /// - Throws: ``BenchError`` naming what the server saw instead.
    static func upload(workload: Workload, sink: SinkProbe.Delta) throws(BenchError) {
        guard sink.errors == 0, sink.uploads == Int64(workload.requests) else {
            throw BenchError("bench-sink accepted \(sink.uploads) uploads and refused \(sink.errors), expected \(workload.requests) and 0 "
                + "(its answer is in the client's output)")
        }
        let expected = workload.bodyBytes * Int64(workload.requests)
        guard sink.fileBytes == expected, sink.nonzero == 0 else {
            throw BenchError("bench-sink received \(sink.fileBytes) file bytes (\(sink.nonzero) not zero), expected \(expected) zero bytes")
        }
    }

    /// nginx served exactly the requests of the run, and for W5/W6 each on its own connection.
    /// - Throws: ``BenchError`` when nginx saw something else.
    static func connections(workload: Workload, nginx: NginxProbe.Delta) throws(BenchError) {
        guard nginx.requests == workload.requests else {
            throw BenchError("nginx served \(nginx.requests) requests, expected \(workload.requests)")
        }
        if workload.newConnectionPerRequest {
            guard nginx.connections == workload.requests else {
                throw BenchError("\(workload.requests) requests arrived on \(nginx.connections) connections; each must have its own (Connection: close)")
            }
        }
        if workload.server == .handshakes {
            guard nginx.loggedRequests == workload.requests else {
                throw BenchError("the handshake server logged \(nginx.loggedRequests) requests, expected \(workload.requests)")
            }
            guard nginx.otherCipher == 0 else {
                throw BenchError("\(nginx.otherCipher) requests did not use TLS 1.3 with TLS_AES_128_GCM_SHA256")
            }
        }
    }
}
