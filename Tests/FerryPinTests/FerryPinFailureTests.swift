import Foundation
import Testing
import TestSupport

/// `ferry-pin`'s failures: one line on standard error, nothing on standard output, exit 2 for
/// usage and 77 for a bad certificate file.
@Suite struct FerryPinFailureTests {
    @Test func missingFileIs77AndNamesThePath() async throws {
        let missing = "/nonexistent/ferry-pin-test/none.pem"
        let result = try await PinTool.run([missing])
        #expect(result.status == 77)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderrLines.first?.hasPrefix("ferry-pin: ") == true)
        #expect(result.stderr.contains(missing))
    }

    @Test func keyFileIs77NoCertificate() async throws {
        let key = PinTool.path("leaf.key")
        let result = try await PinTool.run([key])
        #expect(result.status == 77)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains("no certificate"))
        #expect(result.stderr.contains(key))
    }

    @Test func garbageIs77() async throws {
        let result = try await PinTool.run(["-"], input: Array("not a certificate".utf8))
        #expect(result.status == 77)
        #expect(result.stderr.hasPrefix("ferry-pin: standard input: "))
    }

    @Test func oneBadFileAmongGoodOnesPrintsNothing() async throws {
        let result = try await PinTool.run([PinTool.path("leaf.pem"), PinTool.path("root-ca.key"), PinTool.path("chain.pem")])
        #expect(result.status == 77)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
    }

    @Test func eachBadFileGetsItsLine() async throws {
        let result = try await PinTool.run(["/nonexistent/a.pem", "/nonexistent/b.pem"])
        #expect(result.status == 77)
        #expect(result.stderrLines.count == 2)
        #expect(result.stderrLines.first?.contains("/nonexistent/a.pem") == true)
        #expect(result.stderrLines.last?.contains("/nonexistent/b.pem") == true)
    }

    @Test(
        "usage errors exit 2 with one line",
        arguments: [
            [], ["--json"], ["--bogus", "x.pem"], ["-x", "x.pem"], ["--connect"], ["--connect", "127.0.0.1:443", "x.pem"],
            ["--servername", "localhost", "x.pem"], ["--connect", "127.0.0.1"], ["--connect", "127.0.0.1:0"],
            ["--connect", "127.0.0.1:99999"], ["--connect", "[::1:443"], ["--connect", "::1:443"],
        ])
    func usageErrors(arguments: [String]) async throws {
        let result = try await PinTool.run(arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderrLines.first?.hasPrefix("ferry-pin: ") == true)
    }

    @Test func helpAndVersionExitZero() async throws {
        let help = try await PinTool.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdoutText.hasPrefix("Usage: ferry-pin "))
        #expect(help.stdoutText.contains("--connect <host:port>"))
        #expect(help.stdoutText.contains("--servername <name>"))
        let version = try await PinTool.run(["-V"])
        #expect(version.status == 0)
        #expect(version.stdoutText.hasPrefix("ferry-pin "))
    }
}
