// The cookie-date algorithm of RFC 6265bis §5.1.1, as a table: each spelling servers use, the
// two-digit-year rule, the order in which tokens fill fields, and every validity check.
import Foundation
import Testing

@testable import FerrySession

@Suite("Cookie dates (RFC 6265bis §5.1.1)")
struct CookieDateTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let text: String
        let epoch: Int64?
        var testDescription: String { "\"\(text)\" → \(epoch.map(String.init) ?? "invalid")" }
    }

    static let valid: [Case] = [
        // The three HTTP date formats (RFC 9110 §5.6.7).
        Case(text: "Sun, 06 Nov 1994 08:49:37 GMT", epoch: 784_111_777),
        Case(text: "Sunday, 06-Nov-94 08:49:37 GMT", epoch: 784_111_777),
        Case(text: "Sun Nov  6 08:49:37 1994", epoch: 784_111_777),
        // The RFC's own example, and other spellings seen in the wild.
        Case(text: "Wed, 09 Jun 2021 10:18:14 GMT", epoch: 1_623_233_894),
        Case(text: "Wed, 09-Jun-2021 10:18:14 GMT", epoch: 1_623_233_894),
        Case(text: "09 Jun 2021 10:18:14", epoch: 1_623_233_894),
        Case(text: "1994 Nov 06 08:49:37", epoch: 784_111_777),
        Case(text: "Sun, 06 November 1994 08:49:37 GMT", epoch: 784_111_777),
        Case(text: "sun, 06 NOV 1994 08:49:37 gmt", epoch: 784_111_777),
        Case(text: "Sun, 06 Nov 1994 08:49:37GMT", epoch: 784_111_777),
        Case(text: "Sun, 06 Nov 1994 08:49:37 +0100", epoch: 784_111_777),
        Case(text: "  Sun, 06 Nov 1994 08:49:37 GMT  ", epoch: 784_111_777),
        Case(text: "Sun, 6 Nov 1994 8:9:7 GMT", epoch: 784_109_347),
        // Two-digit years: 70–99 are 19xx, 0–69 are 20xx.
        Case(text: "Thu, 01-Jan-70 00:00:01 GMT", epoch: 1),
        Case(text: "Thu, 01 Jan 1970 00:00:00 GMT", epoch: 0),
        Case(text: "Fri, 31 Dec 99 23:59:59 GMT", epoch: 946_684_799),
        Case(text: "Sat, 01 Jan 00 00:00:00 GMT", epoch: 946_684_800),
        Case(text: "Tue, 01 Jan 69 00:00:00 GMT", epoch: 3_124_224_000),
        Case(text: "Wed, 21 Oct 15 07:28:00 GMT", epoch: 1_445_412_480),
        // Beyond 32-bit time, leap days, the first and last years.
        Case(text: "Tue, 19 Jan 2038 03:14:08 GMT", epoch: 2_147_483_648),
        Case(text: "Thu, 29 Feb 2024 12:00:00 GMT", epoch: 1_709_208_000),
        Case(text: "Tue, 29 Feb 2000 00:00:00 GMT", epoch: 951_782_400),
        Case(text: "Mon, 01 Jan 1601 00:00:00 GMT", epoch: -11_644_473_600),
        Case(text: "Fri, 31 Dec 9999 23:59:59 GMT", epoch: 253_402_300_799),
        // Each token fills the first unset field it matches: "12" the day, "13" the year
        // (a second day is not looked for), "2020" nothing.
        Case(text: "12 13 2020 10:00:00 Jan", epoch: 1_357_984_800),
    ]

    static let invalid: [String] = [
        "",
        "gibberish",
        "Sun, 06 Nov 1994",  // no time
        "Sun, 06 1994 08:49:37",  // no month
        "Sun, Nov 1994 08:49:37",  // no day (1994 is the year, not a day)
        "Sun, 06 Nov 08:49:37",  // no year
        "Sun,06Nov1994 08:49:37",  // "06Nov1994" is one token, taken as the day: no month
        "Thu, 29 Feb 2023 12:00:00 GMT",  // not a leap year
        "Thu, 29 Feb 1900 12:00:00 GMT",  // a century that is not a leap year
        "Thu, 31 Apr 2020 00:00:00 GMT",
        "Sat, 32 Jan 2020 00:00:00 GMT",
        "Sat, 00 Jan 2020 00:00:00 GMT",
        "Wed, 01 Jan 2020 24:00:00 GMT",
        "Wed, 01 Jan 2020 23:60:00 GMT",
        "Wed, 01 Jan 2020 23:59:60 GMT",  // leap seconds cannot be represented
        "Sun, 31 Dec 1600 23:59:59 GMT",  // before 1601
        "Sat, 01 Jan 10000 00:00:00 GMT",  // five-digit year is no year
        "Wed, 01 Jan 2020 123:00:00 GMT",  // a three-digit hour makes no time
        "Wed, 01 Xyz 2020 00:00:00 GMT",
    ]

    @Test("valid dates", arguments: valid)
    func validDate(_ test: Case) throws {
        let date = try #require(SetCookieParser.cookieDate(test.text))
        #expect(Int64(date.timeIntervalSince1970) == test.epoch)
    }

    @Test("invalid dates are not dates", arguments: invalid)
    func invalidDate(_ text: String) {
        #expect(SetCookieParser.cookieDate(text) == nil)
    }

    @Test func anInvalidExpiresIsIgnoredNotFatal() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let fields = try SetCookieParser.lex("a=b; Expires=Wed, 01 Jan 2020 24:00:00 GMT", now: now).get()
        #expect(fields.expires == nil)
        #expect(fields.name == "a" && fields.value == "b")
    }

    @Test func aLaterInvalidExpiresLeavesAnEarlierValidOne() throws {
        let now = Date(timeIntervalSince1970: 1_600_000_000)
        let fields = try SetCookieParser.lex("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Expires=never", now: now).get()
        #expect(fields.expires == Date(timeIntervalSince1970: 1_623_233_894))
    }
}
