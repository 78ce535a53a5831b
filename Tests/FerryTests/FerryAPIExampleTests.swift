// Examples/ferry-api run as a user runs it, against the test suite's echo server: over http,
// and over https with the test CA trusted and the leaf's public key pinned (a wrong pin is
// refused before any request byte is sent).
import Ferry
import Foundation
import Testing
import TestSupport

@Suite("Example: ferry-api")
struct FerryAPIExampleTests {
    static let binary = CommandRunner.builtProduct(named: "ferry-api", environmentVariable: "FERRY_API_BIN")

    static func run(_ arguments: [String]) async throws -> CommandResult {
        try await CommandRunner.run(binary.path, arguments, timeLimit: 30)
    }

    @Test("over http: the JSON GET, the JSON POST, the multipart upload and the Decodable GET")
    func plain() async throws {
        try await HTTPBinServer.withServer { server in
            let result = try await Self.run([server.baseURLString + "/"])
            let output = String(decoding: result.stdout, as: UTF8.self)
            #expect(result.status == 0, "\(result)")
            #expect(output.contains(#"GET  200 args={"page":"2","q":"ferry","tags[]":["a","b"]}"#))
            #expect(output.contains(#"POST json={"admin":false,"languages":["swift","c"],"name":"Ada"}"#))
            #expect(output.contains("upload 100%"))
            #expect(output.contains("FORM server received 10488"))
            #expect(output.contains(#"DECODED GET \#(server.baseURLString)/get?id=7 args=["id": "7"]"#))
        }
    }

    @Test("over https with the leaf's key pinned; a wrong pin sends nothing")
    func pinned() async throws {
        try await TLSTestServer.withServer { server in
            let leaf = try Certificate.certificates(inFile: TestCertificateFiles.url("leaf.pem"))[0]
            let base = server.baseURLString + "/"
            let ca = TestCertificateFiles.path("root-ca.pem")
            let good = try await Self.run([base, "--cacert", ca, "--pin", leaf.publicKey.pin])
            #expect(good.status == 0, "\(good)")
            #expect(String(decoding: good.stdout, as: UTF8.self).contains("DECODED GET https://"))
            server.resetCounters()
            let wrong = try await Self.run([base, "--cacert", ca, "--pin", "sha256//" + String(repeating: "A", count: 43) + "="])
            #expect(wrong.status == 1)
            #expect(wrong.stderr.contains("Pinning mismatch for 127.0.0.1"))
            #expect(server.requestCount == 0)
        }
    }
}
