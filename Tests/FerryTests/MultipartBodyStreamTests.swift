import Foundation
import Testing

@testable import Ferry

/// The streamed multipart body: bounded chunks for a large file, packets for a throttled form,
/// byte streams held to their announced length, a file that changed refused, and a parse of
/// the bytes by an independent parser (Python's `email` package).
@Suite("Multipart body stream")
struct MultipartBodyStreamTests {
    @Test func aLargeFileIsReadInBoundedChunks() async throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let large = directory.appendingPathComponent("large.bin")
        let size: Int64 = 64 << 20
        let fd = open(large.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        try #require(ftruncate(fd, off_t(size)) == 0, "a sparse file of 64 MiB")
        close(fd)
        var form = try MultipartFormData(boundary: "big")
        form.appendPart(formData: "before".utf8, name: "a")
        try form.appendPart(fileURL: large, name: "file")
        form.appendPart(formData: "after".utf8, name: "z")

        var total: Int64 = 0
        var largest = 0
        var chunks = 0
        var tail: [UInt8] = []
        for try await chunk in form.bodyStream {
            total += Int64(chunk.count)
            largest = max(largest, chunk.count)
            chunks += 1
            tail = Array((tail + chunk).suffix(128))
        }
        #expect(total == form.contentLength)
        #expect(form.contentLength > size)
        #expect(largest == MultipartBodyStream.defaultChunkSize, "never more than 64 KiB at once")
        #expect(chunks >= Int(size) / MultipartBodyStream.defaultChunkSize)
        #expect(String(decoding: tail, as: UTF8.self).hasSuffix("\0\0\r\n--big\r\nContent-Disposition: form-data; name=\"z\"\r\n\r\nafter\r\n--big--\r\n"))
    }

    @Test func aThrottledFormSendsPacketsOfAtMostItsSize() async throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let file = try MultipartFixtures.write((0..<1000).map { UInt8($0 % 251) }, named: "f.bin", in: directory)
        var form = try MultipartFormData(boundary: "t")
        form.appendPart(formData: Array(repeating: UInt8(ascii: "x"), count: 250), name: "field")
        try form.appendPart(fileURL: file, name: "file")
        form.throttleBandwidth(packetSize: 100, delay: .milliseconds(1))

        let (bytes, sizes) = try await MultipartFixtures.collect(form.bodyStream)
        #expect(Int64(bytes.count) == form.contentLength)
        #expect(sizes.allSatisfy { (1...100).contains($0) }, "\(sizes)")
        #expect(sizes.count >= Int(form.contentLength) / 100)
        var unthrottled = form
        unthrottled.throttleBandwidth(packetSize: 1 << 20, delay: .zero)
        #expect(try await MultipartFixtures.collect(unthrottled.bodyStream).bytes == bytes, "same bytes, other packets")
    }

    @Test func aByteStreamIsPassedOnInBoundedChunks() async throws {
        let first = [UInt8](repeating: 7, count: 100)
        let second = (0..<200_000).map { UInt8($0 & 0xFF) }
        let stream = AsyncStream<[UInt8]> { continuation in
            continuation.yield(first)
            continuation.yield([])
            continuation.yield(second)
            continuation.finish()
        }
        var form = try MultipartFormData(boundary: "s")
        try form.appendPart(byteStream: stream, name: "upload", fileName: "u.bin", length: 200_100, mimeType: "application/octet-stream")
        let (bytes, sizes) = try await MultipartFixtures.collect(form.bodyStream)
        #expect(Int64(bytes.count) == form.contentLength)
        #expect(sizes.allSatisfy { (1...MultipartBodyStream.defaultChunkSize).contains($0) }, "\(sizes)")
        let head = Array("--s\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"u.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        #expect(Array(bytes.prefix(head.count)) == head)
        #expect(Array(bytes[head.count..<(head.count + 200_100)]) == first + second)
    }

    @Test("a byte stream that does not give its announced length fails the body", arguments: [
        (5, "ended after 5 of its 10 bytes"), (20, "gave more than the 10 bytes it announced"),
    ])
    func byteStreamLengthIsEnforced(given: Int, message: String) async throws {
        let stream = AsyncStream<[UInt8]> { continuation in
            continuation.yield([UInt8](repeating: 1, count: given))
            continuation.finish()
        }
        var form = try MultipartFormData(boundary: "s")
        try form.appendPart(byteStream: stream, name: "part", fileName: "p", length: 10, mimeType: "text/plain")
        do {
            _ = try await MultipartFixtures.collect(form.bodyStream)
            Issue.record("the body was produced")
        } catch let error as NetworkError {
            #expect(error.code == .requestBodyFailed)
            #expect(error.reason == "The byte stream of multipart part \"part\" \(message)", "\(error.reason)")
        }
    }

    @Test func aByteStreamsOwnErrorIsKeptAsTheCause() async throws {
        struct Broken: Error {}
        let stream = AsyncThrowingStream<[UInt8], any Error> { continuation in
            continuation.yield([1, 2])
            continuation.finish(throwing: Broken())
        }
        var form = try MultipartFormData(boundary: "s")
        try form.appendPart(byteStream: stream, name: "part", fileName: "p", length: 10, mimeType: "text/plain")
        do {
            _ = try await MultipartFixtures.collect(form.bodyStream)
            Issue.record("the body was produced")
        } catch let error as NetworkError {
            #expect(error.code == .requestBodyFailed)
            #expect(error.underlyingError is Broken)
            #expect(error.reason.hasPrefix("The byte stream of multipart part \"part\" failed"))
        }
    }

    @Test func aFileWhoseSizeChangedFailsInsteadOfSendingAWrongLength() async throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let file = try MultipartFixtures.write(Array("0123456789".utf8), named: "grows.txt", in: directory)
        var form = try MultipartFormData(boundary: "g")
        try form.appendPart(fileURL: file, name: "doc")
        let announced = form.contentLength
        try MultipartFixtures.write(Array("0123456789 and more".utf8), named: "grows.txt", in: directory)
        #expect(form.contentLength == announced, "the length is the one announced when the part was added")
        do {
            _ = try await MultipartFixtures.collect(form.bodyStream)
            Issue.record("the body was produced")
        } catch let error as NetworkError {
            #expect(error.code == .requestBodyFailed)
            #expect(error.reason.contains("grows.txt (multipart part \"doc\") is 19 bytes now, not the 10 it had when added"), "\(error.reason)")
        }
    }

    @Test func aFileRemovedBeforeSendingIsAnError() async throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let file = try MultipartFixtures.write([1, 2, 3], named: "gone.txt", in: directory)
        var form = try MultipartFormData(boundary: "g")
        try form.appendPart(fileURL: file, name: "doc")
        try FileManager.default.removeItem(at: file)
        do {
            _ = try await MultipartFixtures.collect(form.bodyStream)
            Issue.record("the body was produced")
        } catch let error as NetworkError {
            #expect(error.code == .cannotOpenFile)
            #expect(error.reason == "Cannot read \(file.path) for multipart part \"doc\": No such file or directory")
        }
    }

    @Test func eachIterationStartsAgain() async throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let file = try MultipartFixtures.write(Array("data".utf8), named: "a.txt", in: directory)
        var form = MultipartFormData()
        try form.appendPart(fileURL: file, name: "f")
        let stream = form.bodyStream
        let once = try await MultipartFixtures.collect(stream).bytes
        #expect(try await MultipartFixtures.collect(stream).bytes == once)
    }

    static let parserScript = #"""
import sys, json, email.policy
from email.parser import BytesParser
content_type, path = sys.argv[1], sys.argv[2]
with open(path, 'rb') as f:
    body = f.read()
message = BytesParser(policy=email.policy.HTTP).parsebytes(b'Content-Type: ' + content_type.encode() + b'\r\n\r\n' + body)
parts = []
for part in message.iter_parts():
    parts.append({'name': part.get_param('name', header='content-disposition'), 'filename': part.get_filename(),
                  'type': part.get('content-type'), 'payload': part.get_payload(decode=True).hex()})
print(json.dumps({'multipart': message.is_multipart(), 'defects': [str(d) for d in message.defects], 'parts': parts}))
"""#

    struct ParsedBody: Decodable {
        struct Part: Decodable, Equatable {
            var name: String?
            var filename: String?
            var type: String?
            var payload: String
        }

        var multipart: Bool
        var defects: [String]
        var parts: [Part]
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test(.enabled(if: MultipartFixtures.hasPython3, "needs python3"))
    func pythonsEmailParserReadsTheStreamedBody() async throws {
        let directory = try MultipartFixtures.makeDirectory()
        defer { MultipartFixtures.remove(directory) }
        let fileBytes = (0..<70_000).map { UInt8(($0 * 7) & 0xFF) }
        let file = try MultipartFixtures.write(fileBytes, named: "data.bin", in: directory)
        let binary = (0...255).map(UInt8.init) + Array("\r\n--Boundary".utf8)
        let serializer = HTTPRequestSerializer()
        let request = try serializer.multipartFormRequest(url: URL(string: "https://example.com/upload")!,
                                                          parameters: ["user": ["name": "Ada"], "n": 1]) { form throws(NetworkError) in
            try form.appendPart(fileURL: file, name: "file")
            try form.appendPart(fileData: binary, name: "raw", fileName: "raw \"x\".dat", mimeType: "application/x-raw")
            form.appendPart(formData: "line one\r\nline two".utf8, name: "text")
        }
        let written = directory.appendingPathComponent("body")
        _ = try await serializer.writeMultipartBody(of: request, to: written)
        let contentType = try #require(request.headerFields[.contentType])
        let output = try await MultipartFixtures.python3(Self.parserScript, [contentType, written.path])
        let parsed = try JSONDecoder().decode(ParsedBody.self, from: output)
        #expect(parsed.multipart)
        #expect(parsed.defects.isEmpty, "\(parsed.defects)")
        #expect(parsed.parts == [
            .init(name: "n", filename: nil, type: nil, payload: Self.hex("1".utf8)),
            .init(name: "user[name]", filename: nil, type: nil, payload: Self.hex("Ada".utf8)),
            .init(name: "file", filename: "data.bin", type: "application/octet-stream", payload: Self.hex(fileBytes)),
            .init(name: "raw", filename: "raw %22x%22.dat", type: "application/x-raw", payload: Self.hex(binary)),
            .init(name: "text", filename: nil, type: nil, payload: Self.hex("line one\r\nline two".utf8)),
        ])
    }
}
