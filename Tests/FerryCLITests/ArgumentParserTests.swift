import Foundation
import Testing
@testable import ferry

/// The command line is read with curl's spelling rules.
struct ArgumentParserTests {
    private func parse(_ arguments: String...) throws(UsageError) -> Options {
        try ArgumentParser().parse(arguments)
    }

    private func usageError(_ arguments: String...) -> UsageError? {
        do {
            _ = try ArgumentParser().parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func repeatedURLsAreKeptInOrder() throws {
        let options = try parse("http://a/", "http://a/", "http://b/", "-o", "x", "http://a/")
        #expect(options.urls == ["http://a/", "http://a/", "http://b/", "http://a/"])
        #expect(Array(options.jobs).map(\.output) == ["x", nil, nil, nil])
    }

    @Test("-O pairs with its URL as -o does and names the file after the URL's last path segment, as curl")
    func remoteNamePairsInOrder() throws {
        let options = try parse("-O", "-o", "other", "http://h/dir/file%20a.txt?x=1#f", "http://h/q.bin", "-O", "http://h/dir/", "h/r.bin")
        #expect(options.outputs == [.remoteName, "other", .remoteName])
        let jobs = Array(options.jobs)
        #expect(jobs.map(\.output) == ["file%20a.txt", "other", nil, nil])
        #expect(jobs.map(\.lacksRemoteName) == [false, false, true, false])
        #expect(Options.Output.remoteName(of: "http://h") == nil)
        #expect(Options.Output.remoteName(of: "http://h/a/../b.txt") == "b.txt")
    }

    @Test func credentialAndCookieFlags() throws {
        let options = try parse("-u", "me:se:cret", "--digest", "-b", "a=1", "-b", "jar.txt", "-c", "out.txt", "-j", "http://a/")
        #expect(options.user == "me:se:cret")
        #expect(options.authScheme == .digest)
        #expect(options.cookies == ["a=1", "jar.txt"])
        #expect(options.cookieJar == "out.txt")
        #expect(options.junkSessionCookies)
        #expect(try parse("--digest", "--basic", "http://a/").authScheme == .basic, "the last one wins, as curl")
        #expect(try parse("--anyauth", "http://a/").authScheme == .any)
        let trusted = try parse("--location-trusted", "http://a/")
        #expect(trusted.locationTrusted && trusted.followRedirects, "--location-trusted implies -L")
    }

    @Test func shortFlagsCombine() throws {
        let options = try parse("-sSfiv", "http://a/")
        #expect(options.silent && options.showError && options.fail && options.include && options.verbose)
        #expect(options.urls == ["http://a/"])
    }

    @Test func valueAttachedOrSeparate() throws {
        #expect(try parse("-XPOST", "a").method == "POST")
        #expect(try parse("-X", "PUT", "a").method == "PUT")
        #expect(try parse("-sXDELETE", "a").method == "DELETE")
        #expect(try parse("-so", "out.txt", "a").outputs == ["out.txt"])
        #expect(try parse("-oout.txt", "a").outputs == ["out.txt"])
        #expect(try parse("--request", "PATCH", "a").method == "PATCH")
    }

    @Test func longOptionWithEqualsIsUnknownAsInCurl() {
        #expect(usageError("--max-time=5", "a") == UsageError("option --max-time=5: is unknown"))
    }

    @Test func uniquePrefixAndNegation() throws {
        #expect(try parse("--verb", "a").verbose)
        #expect(try parse("-s", "--no-silent", "a").silent == false)
        // An exact name wins over the longer names it prefixes (--data-binary, --data-raw…).
        #expect(try parse("--data", "x", "a").data == [.init(kind: .ascii, value: "x")])
        // "--max" could be --max-time or --max-filesize.
        #expect(usageError("--max", "1", "a") == UsageError("option --max: is ambiguous"))
        // --no- applies to flags only.
        #expect(usageError("--no-output", "a") == UsageError("option --no-output: is unknown"))
    }

    @Test func unknownAndMissingValues() {
        #expect(usageError("-q", "a") == UsageError("option -q: is unknown"))
        #expect(usageError("--frobnicate", "a") == UsageError("option --frobnicate: is unknown"))
        #expect(usageError("a", "-o") == UsageError("option -o: requires parameter"))
        #expect(usageError("a", "--header") == UsageError("option --header: requires parameter"))
        #expect(usageError("-s") == UsageError("no URL specified!"))
    }

    @Test func usageErrorsLookLikeCurls() {
        #expect(UsageError("option --x: is unknown").lines == [
            "ferry: option --x: is unknown", "ferry: try 'ferry --help' for more information",
        ])
    }

    @Test func outputsPairWithURLsInOrder() throws {
        let options = try parse("-o", "one", "http://a/", "http://b/", "-o", "two", "http://c/")
        #expect(Array(options.jobs) == [
            .init(url: "http://a/", output: "one"),
            .init(url: "http://b/", output: "two"),
            .init(url: "http://c/", output: nil),
        ])
    }

    @Test func optionsAfterURLsApplyAndDoubleDashEndsOptions() throws {
        let options = try parse("http://a/", "-s", "--", "-not-an-option")
        #expect(options.silent)
        #expect(options.urls == ["http://a/", "-not-an-option"])
        #expect(try parse("--url", "http://x/").urls == ["http://x/"])
    }

    @Test func methodMustBeAToken() {
        #expect(usageError("-X", "GE T", "a") != nil)
        #expect(usageError("-X", "", "a") != nil)
        #expect(usageError("-X", "M-SEARCH", "a") == nil)
    }

    @Test func dataKindsKeepTheirOrder() throws {
        let options = try parse("-d", "a=1", "--data-binary", "@f", "--json", "{}", "--data-raw", "@x", "a")
        #expect(options.data == [
            .init(kind: .ascii, value: "a=1"), .init(kind: .binary, value: "@f"),
            .init(kind: .json, value: "{}"), .init(kind: .raw, value: "@x"),
        ])
    }

    @Test func numbers() throws {
        #expect(try parse("-m", "2.5", "a").maxTime == 2.5)
        #expect(try parse("-m", ".5", "a").maxTime == 0.5)
        #expect(try parse("--connect-timeout", "3", "a").connectTimeout == 3)
        #expect(usageError("-m", "abc", "a") == UsageError("option -m: expected a proper numerical parameter"))
        #expect(usageError("-m", "-1", "a") != nil)
        #expect(usageError("-m", "1e3", "a") != nil)
        #expect(try parse("--max-filesize", "1000", "a").maxFilesize == 1000)
        #expect(try parse("--max-filesize", "2K", "a").maxFilesize == 2048)
        #expect(try parse("--max-filesize", "0", "a").maxFilesize == nil, "curl: 0 is no limit")
        #expect(try parse("--max-filesize", "3m", "a").maxFilesize == 3 << 20)
        #expect(usageError("--max-filesize", "K", "a") != nil)
        #expect(usageError("--max-filesize", "99999999999G", "a") != nil)
    }

    @Test("--limit-rate reads curl's units (K, M, G, B); 0 is no cap; every other shape is badly used, as curl says")
    func limitRate() throws {
        #expect(try parse("--limit-rate", "200K", "a").limitRate == 200 << 10)
        #expect(try parse("--limit-rate", "1m", "a").limitRate == 1 << 20)
        #expect(try parse("--limit-rate", "2G", "a").limitRate == 2 << 30)
        #expect(try parse("--limit-rate", "500", "a").limitRate == 500)
        #expect(try parse("--limit-rate", "500B", "a").limitRate == 500)
        #expect(try parse("--limit-rate", "0", "a").limitRate == nil)
        #expect(try parse("a").limitRate == nil)
        #expect(try parse("--limit-rate", " +100k", "a").limitRate == 100 << 10, "strtoll's blanks and sign")
        for bad in ["1.5M", "-5", "10X", "10KB", "K", "", "B", "99999999999999999999"] {
            #expect(usageError("--limit-rate", bad, "a") == UsageError("option --limit-rate: is badly used here"), "\(bad)")
        }
        #expect(usageError("--limit-rate", "99999999999G", "a") == UsageError("option --limit-rate: too large number"))
        #expect(try parse("--max-filesize", "100B", "a").maxFilesize == 100, "the same reader as curl's")
    }

    @Test func continueAtTakesADashOrAByteOffset() throws {
        #expect(try parse("a").continueAt == nil)
        #expect(try parse("-C", "-", "-o", "f", "a").continueAt == .end)
        #expect(try parse("-C-", "a").continueAt == .end, "attached, as curl")
        #expect(try parse("--continue-at", "-", "a").continueAt == .end)
        #expect(try parse("-C", "0", "a").continueAt == .offset(0))
        #expect(try parse("-C", "1234", "a").continueAt == .offset(1234))
        #expect(try parse("--continue-at", "9223372036854775807", "a").continueAt == .offset(Int64.max))
        #expect(try parse("--cont", "7", "a").continueAt == .offset(7), "a unique prefix")
        #expect(try parse("-C", "5", "-C", "-", "a").continueAt == .end, "the last one wins, as curl")
        #expect(Options.ContinueAt.end.bytes == nil)
        #expect(Options.ContinueAt.offset(42).bytes == 42)
    }

    /// curl also takes a sign, spaces, hex and octal; ferry wants the plain digits of a byte count.
    @Test(arguments: ["abc", "", "1.5", "5x", "+5", " 5", "0x10", "--", "-x", "1e3"])
    func continueAtRefusesWhatIsNotAByteCount(_ value: String) {
        #expect(usageError("-C", value, "a") == UsageError("option -C: expected a proper numerical parameter"),
                "\(value.debugDescription)")
    }

    @Test func continueAtSaysWhyANumberIsRefusedInCurlsWords() {
        #expect(usageError("-C", "-5", "a") == UsageError("option -C: expected a positive numerical parameter"))
        #expect(usageError("--continue-at", "99999999999999999999", "a") == UsageError("option -C: too large number"))
        #expect(usageError("a", "-C") == UsageError("option -C: requires parameter"))
    }

    @Test func parallelMaxIsClampedAsCurl() throws {
        #expect(try parse("a").parallelMax == 50)
        #expect(try parse("--parallel-max", "0", "a").parallelMax == 50)
        #expect(try parse("--parallel-max", "1000", "a").parallelMax == 300)
        #expect(try parse("-Z", "--parallel-max", "3", "a").parallelMax == 3)
        #expect(usageError("--parallel-max", "x", "a") != nil)
    }

    @Test func helpAndVersionNeedNoURL() throws {
        #expect(try parse("--help").showHelp)
        #expect(try parse("-V").showVersion)
    }

    @Test func silentHidesErrorsUnlessShowError() throws {
        #expect(try parse("a").showsErrors)
        #expect(try parse("-s", "a").showsErrors == false)
        #expect(try parse("-sS", "a").showsErrors)
    }

    @Test("-H @file adds the file's lines as headers, as curl; a file that cannot be read adds none, with a warning")
    func headersFromAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-headers-\(UUID().uuidString)").path
        try Data("X-A: 1\nX-B: 2\r\n\n  \nX-C;\rbogus\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let options = try parse("-H", "X-First: 0", "-H", "@\(path)", "-H", "@\(path).missing", "http://a/")
        // Split at CR or LF, as curl 7.88.
        #expect(options.headers == ["X-First: 0", "X-A: 1", "X-B: 2", "  ", "X-C;", "bogus"])
        #expect(options.warnings == ["Warning: Failed to open \(path).missing!"])
        #expect(options.headerArguments == [
            HeaderArgument(name: "X-First", action: .add("0")), HeaderArgument(name: "X-A", action: .add("1")),
            HeaderArgument(name: "X-B", action: .add("2")), HeaderArgument(name: "X-C", action: .add("")),
        ])
    }
}
