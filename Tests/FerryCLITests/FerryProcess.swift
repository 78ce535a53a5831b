import Foundation
import TestSupport

/// Runs the built `ferry` executable as a child process, as a user's shell would.
///
/// End-to-end tests go through the real binary (argument vector, exit status, the bytes on
/// standard output and standard error), not through `FerryTool.run`, so that `main`, signal
/// handling and process exit are covered too. TestSupport's ``CommandRunner`` does the
/// running: output to temporary files, posix_spawn, a time limit.
struct FerryProcess {
    /// What one run produced.
    typealias Result = CommandResult

    /// The longest a run may take before it is killed.
    static let timeLimit: TimeInterval = 20

    /// The `ferry` binary: `FERRY_BIN`, else next to the test bundle, else `.build/debug`.
    static let binary = CommandRunner.builtProduct(named: "ferry", environmentVariable: "FERRY_BIN")

    /// Runs `ferry` with `arguments` in `directory` (a fresh temporary one when nil), standard
    /// input from /dev/null.
    static func run(_ arguments: [String], in directory: URL? = nil) async throws -> Result {
        try await CommandRunner.run(binary.path, arguments, in: directory, timeLimit: timeLimit)
    }

    /// ``run(_:in:)`` with the arguments spelled out.
    static func run(_ arguments: String..., in directory: URL? = nil) async throws -> Result {
        try await run(arguments, in: directory)
    }
}

/// Reads the JSON object an httpbin echo route returned.
func jsonObject(_ bytes: [UInt8]) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
}
