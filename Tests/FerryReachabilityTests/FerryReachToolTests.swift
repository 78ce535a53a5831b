import Foundation
@testable import ferry_reach
import FerryReachability
import TestSupport
import Testing

/// `ferry-reach`: its command line and output format, then the built binary end to end.
struct FerryReachToolTests {
    @Test func parsesTheContractsOptions() throws {
        #expect(try ReachOptions.parse([]) == ReachOptions())
        let host = try ReachOptions.parse(["--host", "example.com", "--once", "--json"])
        #expect(host.target == .host("example.com") && host.once && host.json)
        #expect(try ReachOptions.parse(["--address", "2001:db8::1"]).target == .address("2001:db8::1"))
        #expect(try ReachOptions.parse(["-h"]).showHelp)
    }

    @Test(arguments: [
        (["--host", "a", "--address", "192.0.2.1"], "option --address: cannot be combined with --host"),
        (["--host", "a", "--host", "b"], "option --host: cannot be combined with --host"),
        (["--host"], "option --host: requires parameter"),
        (["--address", ""], "option --address: the value is empty"),
        (["--bogus"], "option --bogus: is unknown"),
        (["example.com"], "unexpected argument: example.com"),
    ])
    func refusesBadCommandLines(arguments: [String], message: String) {
        #expect(throws: ReachOptions.UsageError(message: message)) { try ReachOptions.parse(arguments) }
    }

    @Test func formatsLinesAndJSON() {
        let wifi = NetworkReachabilityStatus.reachable(via: .wifi, interface: "wlan0")
        #expect(StatusLine.format(wifi, json: false) == "reachable via wifi (wlan0)")
        #expect(StatusLine.format(wifi, json: true) == #"{"status":"reachable","via":"wifi","interface":"wlan0"}"#)
        #expect(StatusLine.format(.notReachable, json: true) == #"{"status":"not-reachable"}"#)
        #expect(StatusLine.format(.unknown, json: false) == "unknown")
        #expect(StatusLine.escaped("a\"b\\c\u{1}") == #"a\"b\\c\u0001"#)
    }

    // MARK: - The binary

    /// The built `ferry-reach`: next to the test runner (SwiftPM builds both into one directory).
    static let binary: String = {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return runner.appendingPathComponent("ferry-reach").path
    }()

    /// One status line as CLI.md spells it.
    static func isStatusLine(_ line: String) -> Bool {
        line == "not-reachable" || line == "unknown"
            || line.wholeMatch(of: /reachable via (ethernet|wifi|wwan|other) \(.+\)/) != nil
    }

    @Test(arguments: [["--bogus"], ["--host", "a", "--address", "192.0.2.1"], ["--address", "not-an-ip"], ["--json", "extra"]])
    func usageErrorsExitTwo(arguments: [String]) async throws {
        let outcome = try await SpawnedProgram.run(Self.binary, arguments)
        #expect(outcome.status == 2, "\(outcome)")
        #expect(outcome.output.isEmpty && outcome.errorOutput.hasPrefix("ferry-reach: "), "\(outcome)")
    }

    /// The host's own namespace may be in any state: only the format is checked.
    @Test func onceInTheHostNamespacePrintsOneStatus() async throws {
        let text = try await SpawnedProgram.run(Self.binary, ["--once"])
        #expect(text.status == 0, "\(text)")
        let lines = text.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 1 && Self.isStatusLine(lines[0]), "\(text)")
        let json = try await SpawnedProgram.run(Self.binary, ["--once", "--json", "--address", "127.0.0.1"])
        #expect(json.status == 0, "\(json)")
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: String]
        #expect(["reachable", "not-reachable"].contains(object?["status"] ?? ""), "\(json)")
    }
}

/// `ferry-reach` inside a private namespace, where its answers are known.
@Suite(.enabled(NetworkNamespace.skipReason) { await NetworkNamespace.isAvailable() })
struct FerryReachNamespaceTests {
    @Test func onceSaysNotReachableWithOnlyLoopback() async throws {
        try await NetworkNamespace.with { namespace in
            let text = try await namespace.exec(FerryReachToolTests.binary, ["--once"])
            #expect(text.status == 0 && text.output == "not-reachable\n", "\(text)")
            let json = try await namespace.exec(FerryReachToolTests.binary, ["--once", "--json"])
            #expect(json.output == "{\"status\":\"not-reachable\"}\n", "\(json)")
        }
    }

    @Test func printsOneLinePerChangeUntilInterrupted() async throws {
        try await NetworkNamespace.with { namespace in
            try await namespace.ip("link", "add", "frv0", "type", "veth", "peer", "name", "frv1")
            try await namespace.ip("link", "set", "frv1", "up")
            try await namespace.ip("address", "add", "192.0.2.2/24", "dev", "frv0")
            let program = try namespace.start(FerryReachToolTests.binary, ["--json"])
            let first = await waitUntil(timeout: .seconds(5)) { program.output.hasSuffix("\n") }
            try await namespace.ip("link", "set", "frv0", "up")
            try await namespace.ip("route", "add", "default", "via", "192.0.2.1")
            let second = await waitUntil(timeout: .seconds(5)) { program.output.split(separator: "\n").count >= 2 }
            program.send(SIGINT)
            let outcome = await program.finish()
            #expect(first && second, "\(outcome)")
            // `ip netns exec` mounts the namespace's own sysfs, so the kind comes from there.
            #expect(outcome.output == """
                {"status":"not-reachable"}
                {"status":"reachable","via":"ethernet","interface":"frv0"}

                """, "\(outcome)")
        }
    }
}
