import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOSSL

/// The AsyncHTTPClient client (1.37.0): HTTP/1.1 only, trusting the benchmark's CA through its
/// TLS configuration, otherwise its defaults (the shared singleton event-loop group). W8's
/// documents go through Foundation's JSONDecoder (NIOFoundationCompat's `decode(_:from:)`
/// reading the collected ByteBuffer); W9 does not apply (AHC has no multipart form builder).
@main
enum AHCClient {
    static func main() async {
        await ClientMain.run(run)
    }

    static func run(_ options: ClientOptions) async throws -> ClientResult {
        guard options.limitRate == nil else { throw BenchError("AsyncHTTPClient has no bandwidth cap (--limit-rate)") }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let cacert = options.cacert {
            tls.trustRoots = .file(cacert)
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .http1Only
        // W2's 32 in flight need 32 connections (the default soft limit is 8 per host).
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(options.concurrency, 8)
        // NIOSSL keeps no client session cache, so `--no-resume` changes nothing here: every new
        // connection is a full handshake (see Benchmarks/README.md).
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let bytes = try await load(options, client)
            try await client.shutdown()
            return bytes
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    static func load(_ options: ClientOptions, _ client: HTTPClient) async throws -> ClientResult {
        var request = HTTPClientRequest(url: options.url)
        if options.connectionClose {
            request.headers.add(name: "Connection", value: "close")
        }
        let timeout = TimeAmount.seconds(600)
        switch options.mode {
        case .memory:
            let limit = Int(options.bodyBytes) + 1
            return try await ClientMain.requests(options) { [request] _ in
                let response = try await client.execute(request, timeout: timeout)
                let body = try await response.body.collect(upTo: limit)
                return (Int(response.status.code), Int64(body.readableBytes))
            }
        case .decode:
            let limit = Int(options.bodyBytes) + 1
            return try await ClientMain.documents(options) { [request] _ in
                let response = try await client.execute(request, timeout: timeout)
                let body = try await response.body.collect(upTo: limit)
                let document = try JSONDecoder().decode(BenchDocument.self, from: body)
                return (Int(response.status.code), Int64(body.readableBytes), document)
            }
        case .upload:
            throw BenchError("AsyncHTTPClient has no multipart form builder; W9 runs Ferry and curl")
        case .stream:
            return try await ClientMain.requests(options) { [request] _ in
                let response = try await client.execute(request, timeout: timeout)
                var received: Int64 = 0
                for try await buffer in response.body { received += Int64(buffer.readableBytes) }
                return (Int(response.status.code), received)
            }
        case .download:
            // AHC's own streaming-to-file delegate (NIOFileHandle writes on its thread pool).
            let output = options.output ?? ""
            return try await ClientMain.requests(options) { _ in
                let oldRequest = try HTTPClient.Request(url: options.url)
                let delegate = try FileDownloadDelegate(path: output)
                let progress = try await client.execute(request: oldRequest, delegate: delegate).get()
                return (Int(progress.head.status.code), try ClientMain.fileSize(output))
            }
        }
    }
}
