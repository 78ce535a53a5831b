import Foundation
import TestSupport

/// Runs the built `ferry-pin`, and `openssl` for the values it must agree with.
enum PinTool {
    /// `FERRY_PIN_BIN`, else next to the test bundle, else `.build/debug/ferry-pin`.
    static let binary = CommandRunner.builtProduct(named: "ferry-pin", environmentVariable: "FERRY_PIN_BIN")

    /// Runs `ferry-pin` with `arguments`.
    static func run(_ arguments: [String], input: [UInt8]? = nil) async throws -> CommandResult {
        try await CommandRunner.run(binary.path, arguments, input: input, timeLimit: 20)
    }

    /// The path of a committed certificate file.
    static func path(_ name: String) -> String {
        TestCertificateFiles.path(name)
    }

    /// The JSON array `--json` printed.
    static func jsonArray(_ result: CommandResult) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout))
        guard let array = object as? [[String: Any]] else { throw TestServerError("not a JSON array of objects: \(result.stdoutText)") }
        return array
    }
}

/// What the `openssl` command computes, as the reference.
enum OpenSSLReference {
    static let path = CommandRunner.systemTool("openssl") ?? "/usr/bin/openssl"

    /// `openssl x509 -noout -fingerprint -sha256`: `5B:AF:…`.
    static func fingerprint(_ file: String) async throws -> String {
        let result = try await openssl(["x509", "-in", file, "-noout", "-fingerprint", "-sha256"])
        // "sha256 Fingerprint=5B:AF:…" (the prefix's case differs between versions).
        guard let equals = result.firstIndex(of: "=") else { throw TestServerError("no fingerprint in \(result)") }
        return String(result[result.index(after: equals)...]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// curl's pin recipe: `x509 -pubkey | pkey -pubin -outform der | dgst -sha256 -binary | base64`.
    static func pin(_ file: String) async throws -> String {
        let pem = try await run(["x509", "-in", file, "-pubkey", "-noout"])
        let der = try await run(["pkey", "-pubin", "-outform", "der"], input: pem)
        let digest = try await run(["dgst", "-sha256", "-binary"], input: der)
        let base64 = try await run(["base64", "-A"], input: digest)
        return "sha256//" + String(decoding: base64, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func openssl(_ arguments: [String]) async throws -> String {
        String(decoding: try await run(arguments), as: UTF8.self)
    }

    private static func run(_ arguments: [String], input: [UInt8]? = nil) async throws -> [UInt8] {
        let result = try await CommandRunner.run(path, arguments, input: input, timeLimit: 20)
        guard result.status == 0 else { throw TestServerError("openssl \(arguments.joined(separator: " ")): \(result)") }
        return result.stdout
    }
}
