import Ferry
import Foundation
import Testing
@testable import ferry

/// -o files are created lazily, truncated, and failures are curl's exit 23.
struct OutputSinkTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cli-\(UUID().uuidString)").path
    }

    @Test func writesAndTruncates() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("old content that is longer".utf8).write(to: URL(fileURLWithPath: path))
        let sink = OutputSink(path: path, console: Console())
        try sink.write(Array("new".utf8))
        try sink.write(Array(" body".utf8))
        try sink.finish()
        #expect(FileManager.default.contents(atPath: path) == Data("new body".utf8))
    }

    @Test func nothingIsCreatedUntilDataOrSuccess() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = OutputSink(path: path, console: Console())
        try sink.write([])
        #expect(!FileManager.default.fileExists(atPath: path))
        // A successful transfer with an empty body still leaves an (empty) file.
        try sink.finish()
        #expect(FileManager.default.contents(atPath: path) == Data())
    }

    @Test func unwritablePathIsExitTwentyThree() {
        let sink = OutputSink(path: "/nonexistent-dir-for-ferry/x", console: Console())
        do {
            try sink.write([1])
            Issue.record("writing into a missing directory succeeded")
        } catch {
            #expect(error.code == .cannotWriteToFile)
            #expect(ExitCode(error) == .writeError)
            #expect(error.reason.hasPrefix("Failed to open the file /nonexistent-dir-for-ferry/x: "))
        }
    }

    @Test func standardOutputGoesThroughTheConsole() throws {
        let captured = CapturedConsole()
        let sink = OutputSink(path: nil, console: captured.console)
        try sink.write(Array("body".utf8))
        try sink.finish()
        #expect(captured.finish().out == "body")
    }

    @Test func dashMeansStandardOutput() throws {
        let options = try ArgumentParser().parse(["-o", "-", "http://a/"])
        #expect(options.jobs.map(\.filePath) == [nil])
        // `-o -` is an explicit choice: binary output to a terminal is then allowed, as curl.
        #expect(options.jobs.map(\.isImplicitStandardOutput) == [false])
        #expect(try ArgumentParser().parse(["http://a/"]).jobs.map(\.isImplicitStandardOutput) == [true])
    }
}

/// `-w` lines wait in the console until something else is written, or the run ends.
struct ConsoleWriteOutSoonTests {
    @Test func writeOutLinesWaitThenKeepTheirOrder() {
        let captured = CapturedConsole()
        captured.console.writeOutSoon("200 1\n")
        captured.console.writeOutSoon("200 2\n")
        #expect(captured.console.writeOut(Array("body\n".utf8)))
        captured.console.writeOutSoon("200 3\n")
        captured.console.flush()
        captured.console.flush()
        #expect(captured.finish().out == "200 1\n200 2\nbody\n200 3\n")
    }

    @Test func aLongBacklogIsWrittenWithoutAFlush() {
        let captured = CapturedConsole()
        let line = String(repeating: "x", count: 99) + "\n"
        for _ in 0..<(Console.pendingLimit / line.utf8.count + 1) { captured.console.writeOutSoon(line) }
        // No flush: what passed the limit is out already.
        let out = captured.finish().out
        #expect(out.utf8.count >= Console.pendingLimit)
        #expect(out.utf8.count % line.utf8.count == 0)
    }
}
