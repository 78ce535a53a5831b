import Foundation
import Testing

@testable import Ferry

/// AFStreamingMultipartFormData's parts with RFC 7578's rules: exact bytes for a fixed
/// boundary, names escaped as browsers and curl escape them, the MIME table, and clear errors
/// for what cannot be sent (a missing file, a directory, a bad boundary, a bad header).
@Suite("Multipart form data")
struct MultipartFormDataTests {
    @Test func everyKindOfPartHasItsExactBytes() async throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let notes = try MultipartFixtures.write("hello\n".utf8, named: "notes.txt", in: directory)
        var form = try MultipartFormData(boundary: "XyZ")
        form.appendPart(formData: "Ada".utf8, name: "user")
        try form.appendPart(fileURL: notes, name: "doc")
        try form.appendPart(fileData: [0x00, 0xFF, 0x0D, 0x0A], name: "blob", fileName: "b.bin", mimeType: "application/x-thing")
        try form.appendPart(headers: ["Content-Disposition": "form-data; name=\"meta\"", "Content-Type": "application/json"],
                            body: "{}".utf8)
        let expected: [UInt8] = Array("--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nAda".utf8)
            + Array("\r\n--XyZ\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\n".utf8)
            + Array("\r\n--XyZ\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"b.bin\"\r\nContent-Type: application/x-thing\r\n\r\n".utf8)
            + [0x00, 0xFF, 0x0D, 0x0A]
            + Array("\r\n--XyZ\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{}".utf8)
            + Array("\r\n--XyZ--\r\n".utf8)
        let body = try await MultipartFixtures.collect(form.bodyStream).bytes
        #expect(body == expected, "\(String(decoding: body, as: UTF8.self))")
        #expect(form.contentLength == Int64(expected.count))
        #expect(form.contentType == "multipart/form-data; boundary=XyZ")
        #expect(form.requestBody.knownLength == Int64(expected.count))
    }

    @Test func anEmptyFormHasNoBytes() async throws {
        let form = try MultipartFormData(boundary: "b")
        #expect(form.isEmpty)
        #expect(form.contentLength == 0)
        #expect(try await MultipartFixtures.collect(form.bodyStream).bytes.isEmpty)
    }

    @Test("names and file names escape quotes, CR and LF as browsers do; other text stays UTF-8", arguments: [
        ("a\"b", #"a%22b"#),
        ("line\r\nInjected: yes", "line%0D%0AInjected: yes"),
        ("lone\rcr\nlf", "lone%0Dcr%0Alf"),
        ("naïve 文件 😀", "naïve 文件 😀"),
        ("tab\there", "tab\there"),
        ("nul\u{0}bell\u{7}del\u{7F}", "nul%00bell%07del%7F"),
        ("100% sure", "100% sure"),
    ])
    func escaping(raw: String, written: String) async throws {
        var form = try MultipartFormData(boundary: "b")
        try form.appendPart(fileData: [1], name: raw, fileName: raw + ".txt", mimeType: "text/plain")
        let text = try await MultipartFixtures.text(form)
        #expect(text.contains("Content-Disposition: form-data; name=\"\(written)\"; filename=\"\(written).txt\"\r\n"), "\(text)")
        // No part header line holds anything but what was written: the injected line never starts one.
        #expect(!text.contains("\r\nInjected"))
        #expect(form.contentLength == Int64(text.utf8.count))
    }

    @Test("the MIME table", arguments: [
        ("txt", "text/plain"), ("HTML", "text/html"), ("css", "text/css"), ("js", "text/javascript"),
        ("json", "application/json"), ("xml", "application/xml"), ("pdf", "application/pdf"), ("png", "image/png"),
        ("jpg", "image/jpeg"), ("JPEG", "image/jpeg"), ("gif", "image/gif"), ("webp", "image/webp"),
        ("svg", "image/svg+xml"), ("mp3", "audio/mpeg"), ("mp4", "video/mp4"), ("wav", "audio/wav"),
        ("zip", "application/zip"), ("gz", "application/gzip"), ("tar", "application/x-tar"), ("csv", "text/csv"),
        ("cer", "application/pkix-cert"), ("CRT", "application/x-x509-ca-cert"), ("pem", "application/x-pem-file"),
        ("p12", "application/x-pkcs12"), ("csr", "application/pkcs10"),
        ("bin", "application/octet-stream"), ("unknownext", "application/octet-stream"), ("", "application/octet-stream"),
    ])
    func mimeTable(pathExtension: String, type: String) {
        #expect(MultipartFormData.mimeType(forPathExtension: pathExtension) == type)
    }

    @Test func aFilePartTakesItsNameAndTypeFromThePath() async throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let image = try MultipartFixtures.write([0x89, 0x50], named: "photo.final.PNG", in: directory)
        let bare = try MultipartFixtures.write([0x01], named: "README", in: directory)
        var form = try MultipartFormData(boundary: "b")
        try form.appendPart(fileURL: image, name: "p")
        try form.appendPart(fileURL: bare, name: "r")
        let text = try await MultipartFixtures.text(form)
        #expect(text.contains("name=\"p\"; filename=\"photo.final.PNG\"\r\nContent-Type: image/png\r\n"))
        #expect(text.contains("name=\"r\"; filename=\"README\"\r\nContent-Type: application/octet-stream\r\n"))
    }

    @Test func aMissingFileIsAnErrorNamingThePath() throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let missing = directory.appendingPathComponent("missing.txt")
        var form = MultipartFormData()
        let error = try #require(throws: NetworkError.self) { try form.appendPart(fileURL: missing, name: "f") }
        #expect(error.code == .cannotOpenFile)
        #expect(error.reason == "Cannot add \(missing.path) to the multipart form: No such file or directory", "\(error.reason)")
        #expect((error.underlyingError as? SystemError)?.errno == ENOENT)
        #expect(form.isEmpty, "a failed append adds nothing")
    }

    @Test func aDirectoryIsAnError() throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        var form = MultipartFormData()
        let error = try #require(throws: NetworkError.self) {
            try form.appendPart(fileURL: directory, name: "f", fileName: "d", mimeType: "text/plain")
        }
        #expect(error.code == .cannotOpenFile)
        #expect(error.reason.contains(directory.path) && error.reason.hasSuffix("Is a directory"), "\(error.reason)")
        #expect((error.underlyingError as? SystemError)?.errno == EISDIR)
    }

    @Test func aFileThatIsNotRegularIsAnError() throws {
        var form = MultipartFormData()
        let error = try #require(throws: NetworkError.self) { try form.appendPart(fileURL: URL(fileURLWithPath: "/dev/null"), name: "f") }
        #expect(error.code == .cannotOpenFile)
        #expect(error.reason == "Cannot add /dev/null to the multipart form: it is not a regular file")
    }

    @Test("a caller's boundary is checked against RFC 2046", arguments: [
        "", String(repeating: "a", count: 71), "a\r\nb", "ends ", "semi;colon", "quote\"", "é", "tab\t",
    ])
    func badBoundary(boundary: String) {
        let error = #expect(throws: NetworkError.self) { try MultipartFormData(boundary: boundary) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.reason.contains("Invalid multipart boundary") == true)
    }

    @Test func goodBoundariesAndTheirContentType() throws {
        #expect(try MultipartFormData(boundary: String(repeating: "z", count: 70)).boundary.count == 70)
        #expect(try MultipartFormData(boundary: "Boundary+0A").contentType == "multipart/form-data; boundary=Boundary+0A")
        #expect(try MultipartFormData(boundary: "a b").contentType == "multipart/form-data; boundary=\"a b\"")
        #expect(try MultipartFormData(boundary: "'()+_,-./:=?").contentType == "multipart/form-data; boundary=\"'()+_,-./:=?\"")
    }

    @Test func randomBoundariesAreLongAndDiffer() {
        let first = MultipartFormData().boundary
        let second = MultipartFormData().boundary
        #expect(first != second)
        #expect(first.hasPrefix("Boundary+") && first.count == 9 + 32)
        #expect(first.dropFirst(9).allSatisfy { $0.isHexDigit && !$0.isLowercase })
    }

    @Test("custom part headers follow NetworkRequest's rules", arguments: [
        ("X-Bad", "value\r\nInjected: 1"), ("X-Bad", "nul\u{0}"), ("Bad Name", "v"), ("", "v"),
    ])
    func badPartHeaders(name: String, value: String) {
        var form = MultipartFormData()
        let error = #expect(throws: NetworkError.self) { try form.appendPart(headers: [(name: name, value: value)], body: [UInt8]()) }
        #expect(error?.code == .invalidRequest)
        #expect(form.isEmpty)
    }

    @Test func aMIMETypeCannotCarryAHeader() {
        var form = MultipartFormData()
        let error = #expect(throws: NetworkError.self) {
            try form.appendPart(fileData: [1], name: "f", fileName: "f", mimeType: "text/plain\r\nX-Injected: 1")
        }
        #expect(error?.code == .invalidRequest)
    }

    @Test func throttleDefaultsAreAFNetworkings() throws {
        #expect(MultipartFormData.uploadStream3GSuggestedPacketSize == 16 * 1024)
        #expect(MultipartFormData.uploadStream3GSuggestedDelay == .milliseconds(200))
        var form = MultipartFormData()
        #expect(form.bodyStream.maximumChunkSize == 64 * 1024)
        form.throttleBandwidth()
        #expect(form.bodyStream.maximumChunkSize == 16 * 1024)
        #expect(form.throttle?.delay == .milliseconds(200))
        form.throttleBandwidth(packetSize: 0, delay: .seconds(-1))
        #expect(form.bodyStream.maximumChunkSize == 1)
        #expect(form.throttle?.delay == .zero)
    }

    @Test("a throttle becomes the body's cap: a packet per delay, kept by the connection")
    func throttleIsTheBodysCap() throws {
        var form = MultipartFormData()
        form.appendPart(formData: Array("v".utf8), name: "f")
        #expect(form.requestBody.maximumBytesPerSecond == nil)
        form.throttleBandwidth()
        #expect(form.requestBody.maximumBytesPerSecond == 81_920, "16 KiB per 0.2 s")
        guard case .segments = form.requestBody.storage else {
            Issue.record("a throttled form without a byte stream is still read by the engine")
            return
        }
        form.throttleBandwidth(packetSize: 1, delay: .seconds(10))
        #expect(form.requestBody.maximumBytesPerSecond == 1, "never below a byte a second")
        form.throttleBandwidth(packetSize: 100, delay: .zero)
        #expect(form.requestBody.maximumBytesPerSecond == nil, "no delay, no cap")
    }
}
