import Testing

@testable import FerrySession

/// How a response to a continued download is judged (issue 19's rules): a 206 must start where
/// the file stops and run to the end, a 200 starts over when If-Range was sent (and is refused
/// without it, as curl -C), a 416 whose total is what is on disk completes the download.
struct ResumeResponseTests {
    @Test("the rules", arguments: [
        (206, "bytes 500-999/1000", ResumeResponse.continues(total: 1000)),
        (206, "bytes 500-999/*", .continues(total: nil)),
        (200, nil, .restarts),
        (200, "bytes 0-999/1000", .restarts),
        (416, "bytes */500", .alreadyComplete),
    ] as [(Int, String?, ResumeResponse)])
    func accepted(_ status: Int, _ contentRange: String?, _ expected: ResumeResponse) {
        #expect(ResumeResponse.judge(status: status, contentRange: contentRange, offset: 500, validated: true) == expected)
    }

    @Test func withoutIfRangeA200IsRefusedAsCurlDoes() {
        guard case .mismatch(let reason) = ResumeResponse.judge(status: 200, contentRange: nil, offset: 500, validated: false) else {
            Issue.record("expected a mismatch")
            return
        }
        #expect(reason.contains("ignored the range request"))
        #expect(ResumeResponse.judge(status: 206, contentRange: "bytes 500-999/1000", offset: 500, validated: false)
            == .continues(total: 1000))
    }

    @Test func otherStatusesSayNothingAboutTheBytesOnDisk() {
        #expect(ResumeResponse.judge(status: 404, contentRange: nil, offset: 500, validated: true) == .otherStatus(404))
        #expect(ResumeResponse.judge(status: 503, contentRange: "bytes */500", offset: 500, validated: false) == .otherStatus(503))
    }

    @Test("what cannot go on, with the reason", arguments: [
        (206, nil, "without a valid Content-Range"),
        (206, "bytes 0-999/1000", "starts at byte 0, not at 500"),
        (206, "bytes 500-599/1000", "ends at byte 599 of 1000"),
        (416, "bytes */400", "the resource has 400 bytes, but 500 are on disk"),
        (416, nil, "without the resource's length"),
    ] as [(Int, String?, String)])
    func refused(_ status: Int, _ contentRange: String?, _ words: String) {
        guard case .mismatch(let reason) = ResumeResponse.judge(status: status, contentRange: contentRange, offset: 500,
                                                                validated: true) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reason.contains(words), "\(reason)")
    }
}
