import Foundation
import TestSupport
import Testing
@testable import ferry

/// `-K FILE`, as curl reads its config files: one option a line, with or without dashes, the
/// parameter after whitespace, `=` or `:`, quoted with escapes or not.
struct ConfigFileTests {
    private func entry(_ line: String) throws(UsageError) -> ConfigFile.Entry? {
        try ConfigFile.entry(ArraySlice(Array(line.utf8)))
    }

    @Test func linesAsCurlReadsThem() throws {
        #expect(try entry("url = \"http://a/x y\"") == ConfigFile.Entry(option: "--url", parameter: "http://a/x y"))
        #expect(try entry("  --output: /dev/null") == ConfigFile.Entry(option: "--output", parameter: "/dev/null"))
        #expect(try entry("-o out.bin") == ConfigFile.Entry(option: "-o", parameter: "out.bin"))
        #expect(try entry("silent") == ConfigFile.Entry(option: "--silent", parameter: nil))
        #expect(try entry("header \"X-A: \\\"q\\\"\\tb\"\r") == ConfigFile.Entry(option: "--header", parameter: "X-A: \"q\"\tb"))
        #expect(try entry("write-out=%{http_code} trailing") == ConfigFile.Entry(option: "--write-out", parameter: "%{http_code}"))
        #expect(try entry("# a comment") == nil)
        #expect(try entry("   ") == nil)
        #expect(throws: UsageError.self) { try entry("url = \"http://a/") }
    }

    @Test func aConfigFileGoesThroughTheSameOptions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("config")
        let inner = directory.path("inner")
        try "# jobs\nurl = \"http://a/1\"\noutput = \"/dev/null\"\nsilent\n-u me:pw\nconfig = \"\(inner)\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        try "url http://a/2\nno-silent\n".write(toFile: inner, atomically: true, encoding: .utf8)
        let options = try ArgumentParser().parse(["-K", path, "http://a/3"])
        #expect(options.urls == ["http://a/1", "http://a/2", "http://a/3"])
        #expect(options.outputs == ["/dev/null"])
        #expect(options.silent == false, "later lines and files win, in order")
        #expect(options.user == "me:pw")
        #expect(throws: UsageError.self) { try ArgumentParser().parse(["--config", directory.path("missing")]) }
        try "nonsense-option 1\n".write(toFile: inner, atomically: true, encoding: .utf8)
        #expect(throws: UsageError.self) { try ArgumentParser().parse(["-K", inner]) }
        try "config = \"\(path)\"\n".write(toFile: inner, atomically: true, encoding: .utf8)
        try "config = \"\(inner)\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: UsageError.self, "a file that reads itself stops") { try ArgumentParser().parse(["-K", path]) }
    }

    @Test func twentyThousandURLsInAFileShareOneString() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("many")
        try String(repeating: "url = \"http://127.0.0.1:1/1k.bin\"\noutput = \"/dev/null\"\n", count: 20_000)
            .write(toFile: path, atomically: true, encoding: .utf8)
        let options = try ArgumentParser().parse(["-K", path])
        #expect(options.urls.count == 20_000)
        #expect(options.outputs.count == 20_000)
    }
}
