import Ferry
import Foundation
import Testing
@testable import ferry

/// `-F` becomes the method, fields and streamed body curl would send, through the library's
/// `multipartFormRequest`.
struct RequestBuilderFormTests {
    private func builder(_ arguments: String...) throws -> RequestBuilder {
        let options = try ArgumentParser().parse(arguments + ["http://h/"])
        let builder = try RequestBuilder(options: options, postData: PostData(pieces: options.data) { _ in nil })
        return builder.sending(try FormBody.make(options.form) { _ in nil })
    }

    private func usageError(_ arguments: String...) -> UsageError? {
        do {
            let options = try ArgumentParser().parse(arguments + ["http://h/"])
            _ = try RequestBuilder(options: options, postData: PostData(pieces: options.data) { _ in nil })
            return nil
        } catch {
            return error
        }
    }

    @Test func formIsAStreamedPostWithItsBoundaryAndLength() throws {
        let builder = try builder("-F", "a=1", "--form-string", "b=@x")
        let form = try #require(builder.form)
        #expect(builder.method == .post)
        let request = try builder.request(for: "http://h/p")
        #expect(request.method == .post)
        #expect(request.headerFields[.contentType] == "multipart/form-data; boundary=" + form.boundary)
        #expect(request.headerFields[.contentLength] == String(form.contentLength))
        #expect(request.body?.knownLength == form.contentLength)
        // Only the form's two fields: the library serializer's defaults (User-Agent,
        // Accept-Language) are left to the session, as for every other request.
        #expect(request.headerFields.count == 2)
    }

    @Test func methodIsPostUnlessDashX() throws {
        #expect(try builder("-F", "a=1", "-X", "PUT").method == HTTPRequest.Method("PUT"))
        // curl: -G moves -d data only; a form is still POSTed.
        #expect(try builder("-F", "a=1", "-G").method == .post)
        // curl -X GET -F sends a GET with the form; the library builds it as POST, -X renames it.
        let get = try builder("-X", "GET", "-F", "a=1").request(for: "http://h/")
        #expect(get.method == .get)
        #expect(get.body?.knownLength != nil)
    }

    @Test func userContentTypeKeepsTheBoundary() throws {
        let builder = try builder("-F", "a=1", "-H", "Content-Type: multipart/related")
        let boundary = try #require(builder.form?.boundary)
        let request = try builder.request(for: "http://h/")
        #expect(request.headerFields[values: .contentType] == ["multipart/related; boundary=" + boundary])
        let removed = try self.builder("-F", "a=1", "-H", "Content-Type:").request(for: "http://h/")
        #expect(removed.headerFields[.contentType] == nil)
    }

    @Test func formWithDataOrHeadIsTwoMethods() {
        let both = "You can only select one HTTP request method! You asked for both"
        #expect(usageError("-F", "a=1", "-d", "x")?.message == both + " POST (-d, --data) and multipart formpost (-F, --form).")
        #expect(usageError("--json", "{}", "-F", "a=1")?.message == both + " POST (-d, --data) and multipart formpost (-F, --form).")
        #expect(usageError("-I", "-F", "a=1")?.message == both + " HEAD (-I, --head) and multipart formpost (-F, --form).")
        #expect(usageError("-I", "-X", "POST", "-F", "a=1") != nil, "curl refuses it even with -X")
    }
}
