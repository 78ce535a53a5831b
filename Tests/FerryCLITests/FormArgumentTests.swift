import Testing
@testable import ferry

/// `-F` and `--form-string` arguments are read as curl 7.88 reads them (each expectation below
/// was checked against what curl sent to a local echo server).
struct FormArgumentTests {
    private func form(_ text: String) throws(UsageError) -> FormArgument {
        try FormArgument(parsing: text)
    }

    private func usageError(_ text: String, literal: Bool = false) -> UsageError? {
        do {
            _ = try FormArgument(parsing: text, literal: literal)
            return nil
        } catch {
            return error
        }
    }

    @Test func textFileAndFileContentParts() throws {
        #expect(try form("name=value") == FormArgument(name: "name", content: .text("value")))
        #expect(try form("f=@dir/a.txt") == FormArgument(name: "f", content: .file(path: "dir/a.txt")))
        #expect(try form("t=<a.txt") == FormArgument(name: "t", content: .fileText(path: "a.txt")))
        #expect(try form("f=@-") == FormArgument(name: "f", content: .file(path: "-")))
        // Only the first '=' ends the name; an empty name is kept (curl sends "form-data" alone).
        #expect(try form("a=b=c") == FormArgument(name: "a", content: .text("b=c")))
        #expect(try form("=anon") == FormArgument(name: "", content: .text("anon")))
        #expect(try form("e=") == FormArgument(name: "e", content: .text("")))
    }

    @Test func typeAndFileNameInEitherOrder() throws {
        let expected = FormArgument(name: "f", content: .file(path: "a.txt"), mimeType: "image/png", fileName: "x y.png")
        #expect(try form("f=@a.txt;type=image/png;filename=x y.png") == expected)
        #expect(try form("f=@a.txt;filename=x y.png;type=image/png") == expected)
        // Blanks around parameters and after unquoted words are dropped; the keys ignore case.
        #expect(try form("f=@ a.txt ; TYPE= image/png ;Filename= x y.png ") == expected)
        #expect(try form("a=b;type=text/x-foo") == FormArgument(name: "a", content: .text("b"), mimeType: "text/x-foo"))
        #expect(try form("c=d;filename=e.txt") == FormArgument(name: "c", content: .text("d"), fileName: "e.txt"))
        #expect(try form("e=<a.txt;type=text/csv") == FormArgument(name: "e", content: .fileText(path: "a.txt"), mimeType: "text/csv"))
        #expect(try form("a=x;filename=") == FormArgument(name: "a", content: .text("x"), fileName: ""))
    }

    @Test func typeKeepsItsParametersUntilTheNextKnownKey() throws {
        // curl: `Content-Type: text/plain; charset=utf-8` and `text/plain;foo=bar`.
        #expect(try form("c=@a.txt;type=text/plain; charset=utf-8;filename=k").mimeType == "text/plain; charset=utf-8")
        #expect(try form("c=@a.txt;type=text/plain;foo=bar").mimeType == "text/plain;foo=bar")
        #expect(try form("c=@a.txt;type=text/plain;filename=k;foo=bar").warnings == ["Warning: skip unknown form field: foo=bar"])
    }

    @Test func quotedWords() throws {
        #expect(try form(#"a="x;y";type=text/plain"#) == FormArgument(name: "a", content: .text("x;y"), mimeType: "text/plain"))
        #expect(try form(#"b="p\"q\\r""#).content == .text(#"p"q\r"#))
        #expect(try form(#"c=@"a;b,c.txt";filename="w;\"z.txt""#)
            == FormArgument(name: "c", content: .file(path: "a;b,c.txt"), fileName: #"w;"z.txt"#))
        // Quoted values keep their blanks; a backslash before another letter stays.
        #expect(try form(#"d=" spaced " "#).content == .text(" spaced "))
        #expect(try form(#"d="a\b""#).content == .text(#"a\b"#))
        // An unclosed quote is an ordinary character, as in curl.
        #expect(try form(#"e="unterminated"#).content == .text(#""unterminated"#))
        let trailing = try form(#"f="quoted"trail"#)
        #expect(trailing.content == .text("quoted"))
        #expect(trailing.warnings == ["Warning: Trailing data after quoted form parameter"])
    }

    @Test func unknownParametersAreSkippedWithAWarning() throws {
        let plain = try form("d=plain;junk")
        #expect(plain.content == .text("plain"))
        #expect(plain.warnings == ["Warning: skip unknown form field: junk"])
        let file = try form("c=@a.txt;foo=bar")
        #expect(file == FormArgument(name: "c", content: .file(path: "a.txt"), warnings: ["Warning: skip unknown form field: foo=bar"]))
        // `type = x` is not `type=`: curl skips it.
        #expect(try form("c=@a.txt ; type = text/html").mimeType == nil)
        let named = try form("c=<a.txt;filename=x")
        #expect(named.fileName == nil)
        #expect(named.warnings == ["Warning: Field file name not allowed here: x"])
    }

    @Test func formStringIsLiteral() throws {
        #expect(try FormArgument(parsing: "a=@a.txt;type=x/y", literal: true) == FormArgument(name: "a", content: .text("@a.txt;type=x/y")))
        #expect(try FormArgument(parsing: "b=<a.txt", literal: true).content == .text("<a.txt"))
        #expect(try FormArgument(parsing: #"c="q""#, literal: true).content == .text(#""q""#))
        #expect(usageError("novalue", literal: true)?.message.hasPrefix("option --form-string:") == true)
    }

    @Test func badArgumentsAreUsageErrors() {
        #expect(usageError("nameonly")?.message
            == #"option -F: "nameonly" is not name=content (expected name=value, name=@file or name=<file)"#)
        #expect(usageError("c=x;type=bad")?.message
            == #"option -F: illegally formatted content-type field "bad" (expected type=major/minor)"#)
        #expect(usageError("c=x;type=text/") != nil)
        #expect(usageError("c=@a.txt;type=") != nil)
        #expect(usageError("c=x;type=" + String(repeating: "a", count: 128) + "/b") != nil, "curl's 127-byte limit")
        #expect(usageError("c=x;type=" + String(repeating: "a", count: 127) + "/b") == nil)
        #expect(usageError("f=@a.txt,b.txt")?.message.contains("several files") == true)
        #expect(usageError("f=(")?.message.contains("subparts") == true)
        #expect(usageError("c=x;headers=X-A: 1")?.message.contains("headers") == true)
        #expect(usageError("c=x;encoder=base64") != nil)
    }

    @Test func parserCollectsBothSpellingsInOrder() throws {
        let options = try ArgumentParser().parse(["-F", "a=1", "--form", "b=@f", "--form-string", "c=@g", "-Fd=<h", "http://h/"])
        #expect(options.form.map(\.name) == ["a", "b", "c", "d"])
        #expect(options.form.map(\.content) == [.text("1"), .file(path: "f"), .text("@g"), .fileText(path: "h")])
        #expect(throws: UsageError.self) { try ArgumentParser().parse(["-F", "x", "http://h/"]) }
    }
}
