import Testing
@testable import ferry_pin

/// The command line, read in-process.
struct PinArgumentsTests {
    @Test func filesAndFlagsInAnyOrder() throws {
        let options = try PinArguments.parse(["a.pem", "--json", "b.der"])
        #expect(options.files == ["a.pem", "b.der"])
        #expect(options.json)
    }

    @Test func prefixesDashAndDoubleDash() throws {
        #expect(try PinArguments.parse(["--js", "a"]).json)
        #expect(try PinArguments.parse(["-"]).files == ["-"])
        #expect(try PinArguments.parse(["--", "--json"]).files == ["--json"])
        #expect(try PinArguments.parse(["-hV"]).showHelp)
    }

    @Test func mistakes() {
        #expect(throws: PinFailure.usage("option --bogus: is unknown")) { try PinArguments.parse(["--bogus", "a"]) }
        #expect(throws: PinFailure.usage("option -q: is unknown")) { try PinArguments.parse(["-q", "a"]) }
        #expect(throws: PinFailure.usage("no certificate file specified!")) { try PinArguments.parse(["--json"]) }
        #expect(PinFailure.usage("x").line == "ferry-pin: x (try 'ferry-pin --help')")
        #expect(PinFailure.badFile("y").line == "ferry-pin: y")
    }
}
