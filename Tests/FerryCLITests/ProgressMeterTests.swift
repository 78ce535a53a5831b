import Testing
@testable import ferry

/// The meter's text and pacing.
struct ProgressMeterTests {
    @Test func sizesLikeCurl() {
        #expect(ProgressMeter.size(0) == "    0")
        #expect(ProgressMeter.size(99_999) == "99999")
        #expect(ProgressMeter.size(100_000) == "  97k")
        #expect(ProgressMeter.size(1024 * 1234) == "1234k")
        #expect(ProgressMeter.size(Int64(12.39 * 1024 * 1024)) == "12.3M")
        #expect(ProgressMeter.size(500 * 1024 * 1024) == " 500M")
        #expect(ProgressMeter.size(Int64(2.5 * 1024 * 1024 * 1024) * 10) == "25.0G")
    }

    @Test func lineWithKnownAndUnknownSize() {
        #expect(ProgressMeter.line(received: 512, expected: 1024, elapsed: 2) == " 50.0%   512 of  1024    256/s")
        #expect(ProgressMeter.line(received: 2048, expected: nil, elapsed: 1) == "   --%  2048 of    --   2048/s")
        #expect(ProgressMeter.line(received: 0, expected: 0, elapsed: 0) == "100.0%     0 of     0      0/s")
        // A body longer than announced never shows more than 100%.
        #expect(ProgressMeter.line(received: 30, expected: 10, elapsed: 1).hasPrefix("100.0%"))
    }

    @Test func drawsAtMostFourTimesASecond() {
        var meter = ProgressMeter()
        let times = [0, 0.1, 0.24, 0.25, 0.3, 10]
        let draws = times.map { meter.shouldDraw(at: $0) }
        #expect(draws == [true, false, false, true, false, true])
    }
}
