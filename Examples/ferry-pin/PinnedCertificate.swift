import Ferry
import Foundation

/// One certificate to report: where it came from and its place there.
struct PinnedCertificate: Sendable {
    /// The file as named on the command line (`-` for standard input), or the server's
    /// `HOST:PORT` for `--connect`.
    let source: String
    /// Its position in the file, from 1.
    let index: Int
    /// How many certificates the file holds.
    let count: Int
    /// The certificate.
    let certificate: Certificate

    /// Every certificate of `file`, in file order.
    /// - Parameters:
    ///   - file: a path, or `-` for standard input.
    ///   - standardInput: reads standard input (injected so tests need no terminal).
    /// - Throws: ``PinFailure/badFile(_:)`` naming the file and the cause.
    static func load(_ file: String, standardInput: () -> [UInt8]) throws(PinFailure) -> [PinnedCertificate] {
        let certificates: [Certificate]
        do {
            if file == "-" {
                certificates = try parse(standardInput())
            } else {
                certificates = try Certificate.certificates(inFile: URL(fileURLWithPath: file))
            }
        } catch {
            throw .badFile(file == "-" ? "standard input: \(error)" : error.description)
        }
        return entries(certificates, source: file)
    }

    /// `certificates` numbered in order, all labelled `source`.
    static func entries(_ certificates: [Certificate], source: String) -> [PinnedCertificate] {
        certificates.enumerated().map { offset, certificate in
            PinnedCertificate(source: source, index: offset + 1, count: certificates.count, certificate: certificate)
        }
    }

    /// PEM when the bytes carry a `-----BEGIN` line (every block, in order), else one DER
    /// certificate: the rule `Certificate.certificates(inFile:)` applies to files.
    private static func parse(_ bytes: [UInt8]) throws(CertificateError) -> [Certificate] {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN") { return try Certificate.certificates(fromPEM: text) }
        return [try Certificate(derEncoded: bytes)]
    }
}
