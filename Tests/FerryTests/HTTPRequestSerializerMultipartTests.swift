import Foundation
import Testing

@testable import Ferry
@testable import FerrySession

/// AFHTTPRequestSerializer's multipart requests: parameters first as form fields with the
/// query rules' names, the multipart Content-Type and exact Content-Length, default headers,
/// GET and HEAD refused, and the body written to a file for a later upload task.
@Suite("HTTP request serializer: multipart")
struct HTTPRequestSerializerMultipartTests {
    static let url = URL(string: "https://api.example.com/v1/upload")!

    /// The body's bytes, read as the engine would read them.
    static func bodyBytes(_ request: NetworkRequest) async throws -> [UInt8] {
        switch request.body?.storage {
        case .stream(let chunks, _, _)?:
            var bytes: [UInt8] = []
            for try await chunk in chunks { bytes += chunk }
            return bytes
        case .segments(let segments, _)?:
            return try segments.flatMap { segment -> [UInt8] in
                switch segment {
                case .bytes(let bytes): return bytes
                case .file(let path, _): return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                }
            }
        default:
            return []
        }
    }

    @Test func parametersComeFirstWithTheQueryRulesNames() async throws {
        var form = try MultipartFormData(boundary: "P")
        form.appendPart(formData: "last".utf8, name: "z")
        let parameters: Parameters = ["user": ["name": "Ada", "tags": ["x", "y"]], "n": 1, "none": nil, "ok": true]
        let request = try HTTPRequestSerializer().multipartFormRequest(url: Self.url, parameters: parameters, formData: form)
        func field(_ name: String, _ value: String) -> String {
            "Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n--P"
        }
        let expected = "--P\r\n" + field("n", "1") + "\r\n" + field("none", "") + "\r\n" + field("ok", "1") + "\r\n"
            + field("user[name]", "Ada") + "\r\n" + field("user[tags][]", "x") + "\r\n" + field("user[tags][]", "y") + "\r\n"
            + field("z", "last") + "--\r\n"
        let body = try await Self.bodyBytes(request)
        #expect(String(decoding: body, as: UTF8.self) == expected)
        #expect(request.headerFields[.contentLength] == String(body.count))
        #expect(request.body?.knownLength == Int64(body.count))
        #expect(request.headerFields[.contentType] == "multipart/form-data; boundary=P")
    }

    @Test func theRequestGetsTheSerializersHeadersAndAContentTypeOfItsOwn() throws {
        var serializer = HTTPRequestSerializer()
        try serializer.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        try serializer.setValue("yes", forHTTPHeaderField: "X-Default")
        serializer.timeoutInterval = .seconds(7)
        let request = try serializer.multipartFormRequest(method: .put, url: Self.url) { form throws(NetworkError) in
            form.appendPart(formData: "v".utf8, name: "k")
        }
        #expect(request.method == .put)
        #expect(request.url == Self.url)
        #expect(request.headerFields[.userAgent]?.contains("Ferry/") == true)
        #expect(request.headerFields[HTTPField.Name("X-Default")!] == "yes")
        #expect(request.timeoutInterval == .seconds(7))
        let contentType = try #require(request.headerFields[values: .contentType].first)
        #expect(request.headerFields[values: .contentType].count == 1)
        #expect(contentType.hasPrefix("multipart/form-data; boundary=Boundary+"), "the form's boundary wins over any default")
    }

    @Test("GET and HEAD cannot carry a multipart form", arguments: [HTTPRequest.Method.get, .head])
    func bodilessMethodsAreRefused(method: HTTPRequest.Method) {
        let error = #expect(throws: NetworkError.self) {
            try HTTPRequestSerializer().multipartFormRequest(method: method, url: Self.url) { form throws(NetworkError) in
                form.appendPart(formData: "v".utf8, name: "k")
            }
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.reason.hasPrefix("A multipart form cannot be sent with \(method.rawValue)") == true)
    }

    @Test func whatTheBuilderThrowsReachesTheCaller() {
        let error = #expect(throws: NetworkError.self) {
            try HTTPRequestSerializer().multipartFormRequest(url: Self.url) { form throws(NetworkError) in
                try form.appendPart(fileURL: URL(fileURLWithPath: "/nonexistent/ferry/file.txt"), name: "f")
            }
        }
        #expect(error?.code == .cannotOpenFile)
    }

    @Test("an empty form is sent as AFNetworking sends it: an empty url-encoded body")
    func noPartsAndNoParametersMeanAnEmptyFormBody() throws {
        let request = try HTTPRequestSerializer().multipartFormRequest(url: Self.url)
        #expect(memoryBytes(request.body) == [])
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(request.headerFields[.contentLength] == nil)
    }

    @Test("a part from a URL that is not a file URL is refused, never read from the disk at its path")
    func aPartNeedsAFileURL() throws {
        var form = MultipartFormData()
        let error = #expect(throws: NetworkError.self) {
            try form.appendPart(fileURL: URL(string: "https://example.com/etc/hostname")!, name: "f")
        }
        #expect(error?.code == .badURL)
        #expect(form.isEmpty)
    }

    @Test func theBodyIsWrittenToAFileAndTheRequestKeepsItsHeaders() async throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let source = try MultipartFixtures.write((0..<100_000).map { UInt8($0 % 256) }, named: "in.bin", in: directory)
        var form = try MultipartFormData(boundary: "W")
        try form.appendPart(fileURL: source, name: "file")
        let serializer = HTTPRequestSerializer()
        let request = try serializer.multipartFormRequest(url: Self.url, parameters: ["a": "1"], formData: form)
        let expected = try await Self.bodyBytes(request)
        let target = directory.appendingPathComponent("body.multipart")
        try Data("old contents".utf8).write(to: target)

        let bodiless = try await serializer.writeMultipartBody(of: request, to: target)
        #expect(bodiless.body == nil)
        #expect(bodiless.headerFields == request.headerFields)
        #expect(Array(try Data(contentsOf: target)) == expected, "the old file is replaced whole")
        let attributes = try FileManager.default.attributesOfItem(atPath: target.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no temporary file is left: \(leftovers)")
    }

    @Test func aFailingBodyLeavesNoFile() async throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let source = try MultipartFixtures.write([1, 2, 3], named: "in.bin", in: directory)
        var form = try MultipartFormData(boundary: "W")
        try form.appendPart(fileURL: source, name: "file")
        let request = try HTTPRequestSerializer().multipartFormRequest(url: Self.url, formData: form)
        try FileManager.default.removeItem(at: source)
        let target = directory.appendingPathComponent("body")
        do {
            _ = try await HTTPRequestSerializer().writeMultipartBody(of: request, to: target)
            Issue.record("wrote a body whose file is gone")
        } catch {
            #expect(error.code == .cannotOpenFile)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func writingNeedsABodyAndADirectoryThatExists() async throws {
        let serializer = HTTPRequestSerializer()
        do {
            _ = try await serializer.writeMultipartBody(of: NetworkRequest(url: Self.url, method: .post), to: URL(fileURLWithPath: "/tmp/x"))
            Issue.record("wrote a request without a body")
        } catch {
            #expect(error.code == .invalidRequest)
        }
        let request = try serializer.multipartFormRequest(url: Self.url, parameters: ["a": "1"])
        do {
            _ = try await serializer.writeMultipartBody(of: request, to: URL(fileURLWithPath: "/nonexistent/ferry/body"))
            Issue.record("wrote into a missing directory")
        } catch {
            #expect(error.code == .cannotCreateFile)
            #expect(error.reason == "Cannot create /nonexistent/ferry/body: No such file or directory")
        }
    }
}
