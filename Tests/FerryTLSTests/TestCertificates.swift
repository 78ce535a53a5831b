import Foundation
import FerryTLS
import TestSupport

/// The committed test certificates of `Tests/TestSupport/Certificates`, located by
/// ``TestCertificateFiles`` (shared with the TLS test server), parsed with FerryTLS.
enum TestCertificates {
    /// `Tests/TestSupport/Certificates`.
    static var directory: URL { TestCertificateFiles.directory }

    /// Every certificate file the script writes, without extension (all are PEM).
    static let names = [
        "root-ca", "intermediate-ca", "leaf", "leaf-same-key", "expired", "not-yet-valid",
        "wrong-host", "wildcard", "client", "other-ca", "other-leaf",
        "self-signed-cn-only", "self-signed-san", "self-signed-no-names",
    ]

    /// The file `name` in the certificate folder.
    static func url(_ name: String) -> URL {
        TestCertificateFiles.url(name)
    }

    /// The text of `name`.
    static func text(_ name: String) throws -> String {
        try TestCertificateFiles.text(name)
    }

    /// The bytes of `name`.
    static func bytes(_ name: String) throws -> [UInt8] {
        try TestCertificateFiles.bytes(name)
    }

    /// The certificate in `name.pem`.
    static func certificate(_ name: String) throws -> Certificate {
        try Certificate(pemEncoded: text("\(name).pem"))
    }

    /// A UTC date.
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return calendar.date(from: components) ?? .distantPast
    }
}
