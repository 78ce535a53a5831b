import Testing

@testable import FerrySession

/// How a response to a continued download is judged (issue 19's rules): a 206 must start where
/// the file stops, run to the end, carry as many bytes as its range and be of the version on
/// disk; a 200 starts over when If-Range was sent (and is refused without it, as curl -C); a
/// 416 whose total is what is on disk (and what the download began with) completes it.
struct ResumeResponseTests {
    static let validated = ResumeResponse.OnDisk(offset: 500, validator: .entityTag("\"v1\""))
    static let validatedOf1000 = ResumeResponse.OnDisk(offset: 500, validator: .entityTag("\"v1\""), expectedLength: 1000)
    static let unvalidated = ResumeResponse.OnDisk(offset: 500)

    private static func judge(_ status: Int, _ contentRange: String?, onDisk: ResumeResponse.OnDisk = validated,
                              length: Int64? = nil, tag: String? = nil, modified: String? = nil) -> ResumeResponse {
        ResumeResponse.judge(status: status, .init(contentRange: contentRange, contentLength: length, entityTag: tag,
                                                   lastModified: modified), onDisk: onDisk)
    }

    @Test("the rules", arguments: [
        (206, "bytes 500-999/1000", ResumeResponse.continues(total: 1000)),
        (206, "bytes 500-999/*", .continues(total: nil)),
        (200, nil, .restarts),
        (200, "bytes 0-999/1000", .restarts),
        (416, "bytes */500", .alreadyComplete),
    ] as [(Int, String?, ResumeResponse)])
    func accepted(_ status: Int, _ contentRange: String?, _ expected: ResumeResponse) {
        #expect(Self.judge(status, contentRange) == expected)
    }

    @Test func withoutIfRangeA200IsRefusedAsCurlDoes() {
        guard case .mismatch(let reason) = Self.judge(200, nil, onDisk: Self.unvalidated) else {
            Issue.record("expected a mismatch")
            return
        }
        #expect(reason.contains("ignored the range request"))
        #expect(Self.judge(206, "bytes 500-999/1000", onDisk: Self.unvalidated) == .continues(total: 1000))
    }

    @Test func otherStatusesSayNothingAboutTheBytesOnDisk() {
        #expect(Self.judge(404, nil) == .otherStatus(404))
        #expect(Self.judge(503, "bytes */500", onDisk: Self.unvalidated) == .otherStatus(503))
    }

    @Test("what cannot go on, with the reason", arguments: [
        (206, nil, "without a valid Content-Range"),
        (206, "bytes 0-999/1000", "starts at byte 0, not at 500"),
        (206, "bytes 500-599/1000", "ends at byte 599 of 1000"),
        (416, "bytes */400", "the resource has 400 bytes, but 500 are on disk"),
        (416, nil, "without the resource's length"),
    ] as [(Int, String?, String)])
    func refused(_ status: Int, _ contentRange: String?, _ words: String) {
        guard case .mismatch(let reason) = Self.judge(status, contentRange) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reason.contains(words), "\(reason)")
    }

    @Test("a 206 of the version on disk, and as long as its range, continues it")
    func theSameVersionContinues() {
        #expect(Self.judge(206, "bytes 500-999/1000", length: 500, tag: "\"v1\"") == .continues(total: 1000))
        // A 206 that names no validator says nothing against the bytes on disk; one whose tag
        // a CDN weakened is the same version (the server compared If-Range strongly).
        #expect(Self.judge(206, "bytes 500-999/1000") == .continues(total: 1000))
        #expect(Self.judge(206, "bytes 500-999/1000", tag: "W/\"v1\"") == .continues(total: 1000))
        let dated = ResumeResponse.OnDisk(offset: 500, validator: .lastModified("Mon, 07 Dec 2026 10:00:00 GMT"))
        #expect(Self.judge(206, "bytes 500-999/*", onDisk: dated, modified: "Mon, 07 Dec 2026 10:00:00 GMT") == .continues(total: nil))
        // The same date in the obsolete RFC 850 form.
        #expect(Self.judge(206, "bytes 500-999/*", onDisk: dated, modified: "Monday, 07-Dec-26 10:00:00 GMT") == .continues(total: nil))
    }

    @Test("a part of another version, of another length, or whose body does not fit its range is refused", arguments: [
        ("bytes 500-999/1000", 500, "\"v2\"", nil, "the 206 is of version \"v2\", the bytes on disk of \"v1\""),
        ("bytes 500-999/1000", 500, "W/\"v2\"", nil, "the 206 is of version W/\"v2\""),
        ("bytes 500-1499/1500", 1000, "\"v1\"", nil, "the 206 says the resource has 1500 bytes, but the download began with 1000"),
        ("bytes 500-999/1000", 30, nil, nil, "206 for bytes 500-999 carries 30 bytes"),
    ] as [(String, Int64?, String?, String?, String)])
    func otherVersionsAreRefused(_ contentRange: String, _ length: Int64?, _ tag: String?, _ modified: String?, _ words: String) {
        guard case .mismatch(let reason) = Self.judge(206, contentRange, onDisk: Self.validatedOf1000, length: length, tag: tag,
                                                       modified: modified) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reason.contains(words), "\(reason)")
    }

    @Test func anotherLastModifiedIsAnotherVersion() {
        let dated = ResumeResponse.OnDisk(offset: 500, validator: .lastModified("Mon, 07 Dec 2026 10:00:00 GMT"))
        guard case .mismatch(let reason) = Self.judge(206, "bytes 500-999/1000", onDisk: dated,
                                                       modified: "Mon, 07 Dec 2026 11:00:00 GMT") else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reason.contains("last modified Mon, 07 Dec 2026 11:00:00 GMT"), "\(reason)")
    }

    @Test("a 416 naming the bytes on disk is another resource when the download began longer")
    func a416OfAShorterResourceIsRefused() {
        guard case .mismatch(let reason) = Self.judge(416, "bytes */500", onDisk: Self.validatedOf1000) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reason.contains("the resource has 500 bytes, but the download began with 1000"), "\(reason)")
        #expect(Self.judge(416, "bytes */500", onDisk: .init(offset: 500, validator: .entityTag("\"v1\""), expectedLength: 500))
            == .alreadyComplete)
    }
}
