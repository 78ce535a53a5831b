// ferry-api: a small back-end style client built only on HTTPSessionManager, against an
// httpbin-style echo server (`swift run ferry-echo-server` starts the test suite's):
//
//   ferry-api BASE_URL [--cacert FILE] [--pin sha256//BASE64] [--upload FILE]
//
// It sends a JSON GET with query parameters, a POST with a JSON body, a multipart upload of a
// file with progress, and decodes a response into a Decodable type; with --pin it pins the
// server's public key (an https base URL only), with --cacert it trusts that CA.
import Ferry
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the echo server says about a request (the fields this example reads).
struct Echo: Decodable, Sendable {
    let method: String
    let url: String
    let args: [String: String]
    let headers: [String: String]
}

struct Arguments {
    var baseURL: URL
    var caFile: String?
    var pin: String?
    var upload: String?

    static func parse(_ words: [String]) -> Arguments? {
        var words = words[...]
        var parsed: Arguments?
        var caFile: String?, pin: String?, upload: String?
        while let word = words.popFirst() {
            switch word {
            case "--cacert": caFile = words.popFirst()
            case "--pin": pin = words.popFirst()
            case "--upload": upload = words.popFirst()
            default:
                guard parsed == nil, let url = URL(string: word), url.host != nil else { return nil }
                parsed = Arguments(baseURL: url)
            }
        }
        parsed?.caFile = caFile
        parsed?.pin = pin
        parsed?.upload = upload
        return parsed
    }
}

func fail(_ message: String) -> Never {
    let line = Array("ferry-api: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func makeManager(_ arguments: Arguments) throws(NetworkError) -> HTTPSessionManager {
    var configuration = SessionConfiguration()
    if let caFile = arguments.caFile {
        do throws(CertificateError) {
            configuration.tlsConfiguration.trustStore = try TrustStore(contentsOf: URL(fileURLWithPath: caFile))
        } catch {
            fail("cannot read \(caFile): \(error)")
        }
    }
    let manager = HTTPSessionManager(baseURL: arguments.baseURL, sessionConfiguration: configuration)
    // JSON both ways: parameters of a POST become a JSON body; GET keeps them in the query.
    manager.requestSerializer = JSONRequestSerializer()
    if let pin = arguments.pin {
        let key: PublicKeyPin
        do throws(CertificateError) {
            key = try PublicKeyPin(pin)
        } catch {
            fail("bad pin \(pin): \(error)")
        }
        // Refused unless the base URL is https.
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .publicKey, pinnedPublicKeyHashes: [key]))
    }
    return manager
}

/// A file to upload: the caller's, else 1 MiB of a pattern in a temporary file.
func uploadFile(_ path: String?) -> URL {
    if let path { return URL(fileURLWithPath: path) }
    let url = URL(fileURLWithPath: "/tmp/ferry-api-\(getpid()).bin")
    let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    guard FileManager.default.createFile(atPath: url.path, contents: Data(bytes)) else { fail("cannot write \(url.path)") }
    return url
}

func run(_ arguments: Arguments) async throws(NetworkError) {
    let api = try makeManager(arguments)
    defer { api.invalidateSessionCancelingTasks(false, resetSession: false) }

    // 1. A JSON GET with query parameters: the response serializer gives a JSONValue.
    let (object, response) = try await api.get("get", parameters: ["q": "ferry", "page": 2, "tags": ["a", "b"]])
    let json = object as? JSONValue
    print("GET  \(response.statusCode) args=\(json?["args"]?.description ?? "none")")

    // 2. A POST with a JSON body.
    let (posted, _) = try await api.post("post", parameters: ["name": "Ada", "languages": ["swift", "c"], "admin": false])
    print("POST json=\((posted as? JSONValue)?["json"]?.description ?? "none")")

    // 3. A multipart upload of a file, streamed, with progress.
    let file = uploadFile(arguments.upload)
    defer { if arguments.upload == nil { unlink(file.path) } }
    let lastTenth = Atomic<Int>(-1)
    let (uploaded, _) = try await api.post("post", parameters: ["purpose": "example"], constructingBodyWith: { form throws(NetworkError) in
        try form.appendPart(fileURL: file, name: "file")
    }, progress: { progress in
        let tenth = Int((progress.fractionCompleted ?? 0) * 10)
        if lastTenth.exchange(tenth, ordering: .relaxed) != tenth { print("     upload \(tenth * 10)%") }
    })
    let received = (uploaded as? JSONValue)?["bodyLength"]?.intValue ?? -1
    print("FORM server received \(received) bytes")

    // 4. A Decodable response.
    let echo = try await api.get("get", parameters: ["id": 7], as: Echo.self)
    print("DECODED \(echo.method) \(echo.url) args=\(echo.args) user-agent=\(echo.headers["User-Agent"] ?? "?")")
}

guard let arguments = Arguments.parse(Array(CommandLine.arguments.dropFirst())) else {
    fail("usage: ferry-api BASE_URL [--cacert FILE] [--pin sha256//BASE64] [--upload FILE]")
}
do throws(NetworkError) {
    try await run(arguments)
} catch {
    fail(error.description)
}
