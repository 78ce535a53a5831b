import Foundation
import TestSupport

/// The system's `curl` and `openssl s_client` as independent TLS clients of ``TLSTestServer``,
/// each run bounded by a time limit.
enum TLSClientTools {
    static let curlPath = CommandRunner.systemTool("curl") ?? "/usr/bin/curl"
    static let opensslPath = CommandRunner.systemTool("openssl") ?? "/usr/bin/openssl"

    /// `curl -sS --max-time 10 ARGUMENTS… URL`, without any proxy from the environment.
    static func curl(_ arguments: [String], _ url: URL) async throws -> CommandResult {
        try await CommandRunner.run(
            curlPath, ["-sS", "--max-time", "10", "--noproxy", "*"] + arguments + [url.absoluteString], timeLimit: 20)
    }

    /// `curl … --cacert root-ca.pem URL`.
    static func curlTrustingRoot(_ url: URL, with arguments: [String] = []) async throws -> CommandResult {
        try await curl(["--cacert", TestCertificateFiles.path("root-ca.pem")] + arguments, url)
    }

    /// `openssl s_client -connect 127.0.0.1:PORT -servername localhost -CAfile root-ca.pem
    /// ARGUMENTS…`, with `input` on standard input and `-ign_eof`, so that it sends `input`
    /// and stays until the server closes (an HTTP request with `Connection: close`).
    static func sClient(_ server: TLSTestServer, _ arguments: [String], input: String = closingRequest) async throws -> CommandResult {
        let authority = server.host.contains(":") ? "[\(server.host)]:\(server.port)" : "\(server.host):\(server.port)"
        return try await CommandRunner.run(
            opensslPath,
            ["s_client", "-connect", authority, "-servername", "localhost", "-CAfile", TestCertificateFiles.path("root-ca.pem"),
             "-ign_eof"] + arguments,
            input: Array(input.utf8), timeLimit: 20)
    }

    /// A GET of `/get` that asks the server to close afterwards.
    static let closingRequest = "GET /get HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"

    /// The subjects of the certificates `s_client -showcerts` printed, in chain order (the
    /// ` 0 s:CN = localhost, O = Ferry Test` lines, in OpenSSL 3's spelling).
    static func chainSubjects(_ result: CommandResult) -> [String] {
        result.stdoutText.split(separator: "\n").compactMap { line -> String? in
            let parts = line.drop { $0 == " " }.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, Int(parts[0]) != nil, parts[1].hasPrefix("s:") else { return nil }
            return String(parts[1].dropFirst(2))
        }
    }
}
