import BenchSupport
import Ferry
import FoundationEssentials

/// W8 and W9 through Ferry's `HTTPSessionManager`, as an app written against AFNetworking
/// would use it: one manager whose base URL is the server's root, the path relative to it.
///
/// - W8 (`decode`): `try await manager.get(path, as: BenchDocument.self)` per request, the
///   manager's own JSON validation and a fresh `JSONDecoder()` each time (the call's default).
///   The call returns only the value, so the body length is not seen here: a body cut short
///   does not decode, and the document's checksum proves every record was decoded.
/// - W9 (`upload`): `post(path, constructingBodyWith: { try $0.appendPart(fileURL:name:) })`,
///   the async form; the answer is the upload server's JSON (`fileBytes`: what arrived of the
///   file), read through the manager's default JSON response serializer.
/// - W11 (`upload` with `--limit-rate`): the same, the form throttled to the cap
///   (`throttleBandwidth(packetSize:delay:)`, AFNetworking's call, which the form's body carries
///   as its cap): 64 KiB per `delay`, the delay worked out from the rate.
enum ManagerWorkloads {
    static func run(_ options: ClientOptions, url: URL, configuration: SessionConfiguration) async throws -> ClientResult {
        guard let base = URL(string: "/", relativeTo: url)?.absoluteURL else { throw BenchError("no root for \(url)") }
        let path = String(url.path(percentEncoded: true).drop { $0 == "/" })
        let manager = HTTPSessionManager(baseURL: base, sessionConfiguration: configuration)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        return try await withTaskExecutorPreference(FerryClient.preferredExecutor(manager.session, url)) {
            if options.mode == .upload {
                return try await upload(options, manager: manager, path: path)
            }
            return try await decode(options, manager: manager, path: path)
        }
    }

    private static func decode(_ options: ClientOptions, manager: HTTPSessionManager, path: String) async throws -> ClientResult {
        let bytes = options.bodyBytes
        return try await ClientMain.documents(options) { _ in
            // Throws unless the status is 2xx, the type JSON and the body a whole document.
            let document = try await manager.get(path, as: BenchDocument.self)
            return (200, bytes, document)
        }
    }

    private static func upload(_ options: ClientOptions, manager: HTTPSessionManager, path: String) async throws -> ClientResult {
        let file = URL(fileURLWithPath: options.input ?? "")
        let throttle = options.limitRate.map(throttle(for:))
        return try await ClientMain.requests(options) { _ in
            let (object, response) = try await manager.post(path, constructingBodyWith: { form throws(NetworkError) in
                try form.appendPart(fileURL: file, name: "file")
                if let throttle { form.throttleBandwidth(packetSize: throttle.packetSize, delay: throttle.delay) }
            })
            guard let answer = object as? JSONValue, let received = answer["fileBytes"]?.intValue else {
                throw BenchError("the upload server answered \(String(describing: object)), expected {\"fileBytes\":…}")
            }
            return (response.statusCode, Int64(received))
        }
    }

    /// The throttle that is a cap of `bytesPerSecond`: 64 KiB packets, each `delay` long, the
    /// delay in whole nanoseconds (exact for W11's 3,200 KiB/s, 20 ms, and --quick's 16 MiB/s,
    /// 3.90625 ms; for other rates off by under a nanosecond a packet).
    static func throttle(for bytesPerSecond: Int64) -> (packetSize: Int, delay: Duration) {
        let packetSize = 64 * 1024
        return (packetSize, .nanoseconds(Int64(packetSize) * 1_000_000_000 / max(1, bytesPerSecond)))
    }
}
