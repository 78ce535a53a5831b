import Foundation
import HTTPTypes
import Testing

@testable import FerrySession

/// Resume data's format: it comes back as it went out, the validator is the one ranges may
/// use, and bytes that are not resume data, or of another version, are refused with words,
/// never a crash.
struct DownloadResumeDataTests {
    static let sample = DownloadResumeData(
        url: URL(string: "https://files.example/big.iso")!,
        headerFields: [.init(name: "Authorization", value: "Bearer x")],
        validator: .entityTag("\"v1\""), bytesOnDisk: 4096, partialFilePath: "/tmp/ferry-download-abc", expectedLength: 10_000)

    @Test func roundTrips() throws {
        #expect(try DownloadResumeData.decode(Self.sample.encoded()) == Self.sample)
    }

    static let modified = HTTPField(name: .lastModified, value: "Tue, 24 Nov 2026 10:00:00 GMT")

    @Test("the validator: a strong ETag, else (no tag at all) a strong Last-Modified, else none", arguments: [
        ([HTTPField(name: .eTag, value: "\"abc\""), modified], DownloadResumeData.Validator.entityTag("\"abc\"")),
        // RFC 9110 §13.1.5: a weak tag rules the date out too.
        ([HTTPField(name: .eTag, value: "W/\"abc\""), modified], nil),
        // §8.8.2.2: the date is strong when the response was sent at least a second later.
        ([modified, HTTPField(name: .date, value: "Tue, 24 Nov 2026 10:00:01 GMT")], .lastModified("Tue, 24 Nov 2026 10:00:00 GMT")),
        ([modified, HTTPField(name: .date, value: "Wed, 25 Nov 2026 08:00:00 GMT")], .lastModified("Tue, 24 Nov 2026 10:00:00 GMT")),
        // Sent within its last-modified second, or with no Date: it may change again unseen.
        ([modified, HTTPField(name: .date, value: "Tue, 24 Nov 2026 10:00:00 GMT")], nil),
        ([modified], nil),
        ([HTTPField(name: .lastModified, value: "yesterday"), HTTPField(name: .date, value: "Wed, 25 Nov 2026 08:00:00 GMT")], nil),
        ([HTTPField(name: .eTag, value: "W/\"abc\"")], nil),
        ([], nil),
    ] as [([HTTPField], DownloadResumeData.Validator?)])
    func validator(_ fields: [HTTPField], _ expected: DownloadResumeData.Validator?) {
        #expect(DownloadResumeData.validator(in: HTTPFields(fields)) == expected)
    }

    @Test("what is refused", arguments: [
        (Data(), "not Ferry's resume data"),
        (Data("{\"version\": 2}".utf8), "version 2"),
        (Data("{\"version\": 1}".utf8), "lacks a field"),
        (Data(repeating: 0xFF, count: 64), "not Ferry's resume data"),
    ])
    func refusals(_ data: Data, _ words: String) {
        #expect(throws: ResumeDataError.self) { try DownloadResumeData.decode(data) }
        do {
            _ = try DownloadResumeData.decode(data)
        } catch {
            #expect(error.description.contains(words), "\(error)")
        }
    }

    @Test func impossibleCountsAreRefused() {
        var negative = Self.sample
        negative.bytesOnDisk = -1
        var beyond = Self.sample
        beyond.expectedLength = 10
        for data in [negative.encoded(), beyond.encoded()] {
            #expect(throws: ResumeDataError.self) { try DownloadResumeData.decode(data) }
        }
    }

    @Test("resume data may name only a ferry-download- file right in the temporary directory")
    func temporaryPaths() {
        let directory = DownloadFile.temporaryDirectory
        #expect(DownloadFile.isTemporaryPath(directory + "/ferry-download-abc"))
        #expect(DownloadFile.isTemporaryPath(directory + "//ferry-download-abc"), "TMPDIR with a trailing slash")
        #expect(!DownloadFile.isTemporaryPath(directory + "/sub/ferry-download-abc"))
        #expect(!DownloadFile.isTemporaryPath(directory + "/../etc/ferry-download-abc"))
        #expect(!DownloadFile.isTemporaryPath(directory + "/precious"))
        #expect(!DownloadFile.isTemporaryPath("ferry-download-abc"))
    }

}
