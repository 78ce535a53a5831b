import Testing
@testable import ferry

/// Whole command lines that stop before any network activity: usage errors and --version.
struct FerryToolTests {
    private func run(_ arguments: String...) async -> (code: ExitCode, out: String, err: String) {
        let captured = CapturedConsole()
        let code = await FerryTool.run(arguments, console: captured.console)
        let (out, err) = captured.finish()
        return (code, out, err)
    }

    @Test func unknownOptionExitsTwoWithCurlsLines() async {
        let result = await run("--max-time=5", "http://127.0.0.1:9/")
        #expect(result.code == .usage)
        #expect(result.err == "ferry: option --max-time=5: is unknown\nferry: try 'ferry --help' for more information\n")
        #expect(result.out.isEmpty)
    }

    @Test("a -K file that cannot be read is curl's 26, not a usage error")
    func anUnreadableConfigFileIsTwentySix() async {
        let result = await run("-K", "/nonexistent/ferry.conf", "http://127.0.0.1:9/")
        #expect(result.code == .readError)
        #expect(result.err == "ferry: cannot read config from '/nonexistent/ferry.conf': No such file or directory\n")
    }

    @Test func usageErrorsPrintEvenWithSilent() async {
        let result = await run("-s", "--frobnicate", "http://127.0.0.1:9/")
        #expect(result.code == .usage)
        #expect(result.err.hasPrefix("ferry: option --frobnicate: is unknown"))
    }

    @Test func headerWithLineBreakIsRefusedBeforeSending() async {
        let result = await run("-H", "X-Test: a\r\nInjected: yes", "http://127.0.0.1:9/")
        #expect(result.code == .usage)
        #expect(result.err.hasPrefix("ferry: option -H: header X-Test has a value with CR, LF, NUL"))
    }

    @Test func nonTokenMethodIsRefused() async {
        let result = await run("-X", "GET /x HTTP/1.1\r\n", "http://127.0.0.1:9/")
        #expect(result.code == .usage)
    }

    @Test func headAndDataConflict() async {
        #expect(await run("-I", "-d", "a=b", "http://127.0.0.1:9/").code == .usage)
    }

    /// curl would continue standard output, and write the head into the resumed file with
    /// -i/-I; ferry refuses both before anything is sent.
    @Test(arguments: [
        (["-C", "-", "http://127.0.0.1:9/"], "option -C: every URL needs its own -o FILE"),
        (["-C", "5", "-o", "-", "http://127.0.0.1:9/"], "option -C: every URL needs its own -o FILE"),
        (["-C", "-", "-o", "f", "http://127.0.0.1:9/a", "http://127.0.0.1:9/b"], "option -C: every URL needs its own -o FILE"),
        (["-C", "-", "-i", "-o", "f", "http://127.0.0.1:9/"], "option -C: cannot be used with -i, --include"),
        (["--continue-at", "0", "-I", "-o", "f", "http://127.0.0.1:9/"], "option -C: cannot be used with -I, --head"),
    ])
    func continueAtRefusesStandardOutputAndTheHead(_ arguments: [String], _ message: String) async {
        let captured = CapturedConsole()
        let code = await FerryTool.run(arguments, console: captured.console)
        let (out, err) = captured.finish()
        #expect(code == .usage)
        #expect(err.hasPrefix("ferry: \(message)"), "\(err)")
        #expect(err.split(separator: "\n").count == 1, "no --help hint: the option is right, the combination is not")
        #expect(out.isEmpty)
    }

    @Test func continueAtIsInTheHelpText() {
        #expect(HelpText.usage.contains(" -C, --continue-at <offset> "))
    }

    @Test func noURL() async {
        let result = await run("-sS")
        #expect(result.code == .usage)
        #expect(result.err.hasPrefix("ferry: no URL specified!\n"))
    }

    @Test func versionAndHelp() async {
        let version = await run("--version")
        #expect(version.code == .ok)
        #expect(version.out == "ferry \(FerryTool.version) (Ferry)\n")
        let help = await run("-h")
        #expect(help.code == .ok)
        #expect(help.out.hasPrefix("Usage: ferry [options...] <url>..."))
    }
}
