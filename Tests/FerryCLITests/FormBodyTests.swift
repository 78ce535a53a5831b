import Ferry
import Foundation
import Testing
import TestSupport
@testable import ferry

/// `-F` arguments become the parts curl 7.88 sends (heads checked against curl's), through
/// Ferry's `MultipartFormData`, with nothing sent anywhere.
struct FormBodyTests {
    /// The body the form streams, split into parts.
    private func parts(_ arguments: [String], files: [String: [UInt8]] = [:]) async throws -> [MultipartTestParser.Part] {
        let parsed = try arguments.map { text throws(UsageError) in try FormArgument(parsing: text) }
        let form = try FormBody.make(parsed) { files[$0] }
        var body: [UInt8] = []
        for try await chunk in form.bodyStream { body += chunk }
        #expect(Int64(body.count) == form.contentLength)
        return try #require(MultipartTestParser.parts(of: body, boundary: form.boundary))
    }

    private func failure(_ argument: String, files: [String: [UInt8]] = [:]) -> NetworkError? {
        do {
            _ = try FormBody.make([try FormArgument(parsing: argument)]) { files[$0] }
            return nil
        } catch let error as NetworkError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func partsInOrderWithCurlsHeads() async throws {
        let directory = try TemporaryDirectory()
        try Data("hello\nworld\n".utf8).write(to: directory.url.appendingPathComponent("a.txt"))
        try Data([0, 1, 2]).write(to: directory.url.appendingPathComponent("data.bin"))
        try Data("noext".utf8).write(to: directory.url.appendingPathComponent("noext"))
        let parts = try await parts([
            "name=value", "f=@" + directory.path("a.txt"), "g=@" + directory.path("data.bin"), "h=@" + directory.path("noext"),
            "t=<a.txt", "typed=v;type=text/x-foo", "=anon",
        ], files: ["a.txt": Array("from <\n".utf8)])
        #expect(parts == [
            .init([#"Content-Disposition: form-data; name="name""#], "value"),
            .init([#"Content-Disposition: form-data; name="f"; filename="a.txt""#, "Content-Type: text/plain"], "hello\nworld\n"),
            .init(head: [#"Content-Disposition: form-data; name="g"; filename="data.bin""#, "Content-Type: application/octet-stream"],
                  body: [0, 1, 2]),
            .init([#"Content-Disposition: form-data; name="h"; filename="noext""#, "Content-Type: application/octet-stream"], "noext"),
            .init([#"Content-Disposition: form-data; name="t""#], "from <\n"),
            .init([#"Content-Disposition: form-data; name="typed""#, "Content-Type: text/x-foo"], "v"),
            .init(["Content-Disposition: form-data"], "anon"),
        ])
    }

    @Test func fileNameAndTypeModifiers() async throws {
        let directory = try TemporaryDirectory()
        let text = directory.path("a.txt")
        let binary = directory.path("data.bin")
        try Data("hi".utf8).write(to: URL(fileURLWithPath: text))
        try Data("xyz".utf8).write(to: URL(fileURLWithPath: binary))
        let heads = try await parts([
            "f=@\(text);type=image/png;filename=x y.png",
            // The type of the name sent, else of the file read (curl's order).
            "h=@\(binary);filename=q.png", "i=@\(text);filename=q.zzz",
            "c=d;filename=e.txt", #"q=@\#(text);filename="w;\"z.txt""#,
        ]).map(\.head)
        #expect(heads == [
            [#"Content-Disposition: form-data; name="f"; filename="x y.png""#, "Content-Type: image/png"],
            [#"Content-Disposition: form-data; name="h"; filename="q.png""#, "Content-Type: image/png"],
            [#"Content-Disposition: form-data; name="i"; filename="q.zzz""#, "Content-Type: text/plain"],
            [#"Content-Disposition: form-data; name="c"; filename="e.txt""#, "Content-Type: text/plain"],
            // curl and Ferry write a quote in a name as %22 (the HTML standard's rule).
            [#"Content-Disposition: form-data; name="q"; filename="w;%22z.txt""#, "Content-Type: text/plain"],
        ])
    }

    @Test func standardInputIsAFileNamedDash() async throws {
        let parts = try await parts(["c=@-", "d=<-"], files: ["-": Array("stdin".utf8)])
        #expect(parts == [
            .init([#"Content-Disposition: form-data; name="c"; filename="-""#, "Content-Type: application/octet-stream"], "stdin"),
            .init([#"Content-Disposition: form-data; name="d""#], "stdin"),
        ])
    }

    @Test func unreadableFilesAreReadErrors() throws {
        let directory = try TemporaryDirectory()
        let missing = try #require(failure("a=@" + directory.path("missing")))
        #expect(missing.code == .cannotOpenFile)
        #expect(ExitCode(missing) == .readError)
        #expect(missing.reason.contains(directory.path("missing")) && missing.reason.contains("No such file"))
        #expect(failure("a=@" + directory.url.path)?.code == .cannotOpenFile, "a directory is refused")
        #expect(failure("a=<missing")?.code == .cannotOpenFile)
        #expect(failure("a=<-")?.reason == "Cannot read standard input for the multipart form")
    }

    @Test func refusedTypesAndNamesAreUsageErrors() {
        let control = failure("a=b;type=text/pl\rain")
        #expect(control?.code == .invalidRequest)
        #expect(control.map { ExitCode($0) } == .usage)
        #expect(failure(#"a"b=c;type=text/plain"#)?.reason.contains("cannot be given a type") == true)
        #expect(failure(#"a"b=c"#) == nil, "an untyped field's name is escaped by the library")
    }
}
