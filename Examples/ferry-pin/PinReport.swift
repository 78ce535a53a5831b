import Ferry
import Foundation

/// Writes ``PinnedCertificate``s as text blocks or as one JSON array.
///
/// Fingerprints are colon-separated uppercase hexadecimal, exactly as
/// `openssl x509 -noout -fingerprint -sha256` prints them, in both formats, so a script can
/// compare the two outputs as strings. Dates are ISO 8601 in UTC.
enum PinReport {
    /// One block per certificate, blocks separated by an empty line:
    ///
    ///     leaf.pem [1/2]
    ///       subject:     CN=localhost,O=Ferry Test
    ///       issuer:      CN=Ferry Test Intermediate CA,O=Ferry Test
    ///       names:       DNS:localhost, IP:127.0.0.1, IP:::1
    ///       valid:       2026-11-20T00:00:00Z to 2100-12-31T23:59:59Z
    ///       sha256:      5B:AF:…
    ///       pin:         sha256//…=
    ///
    /// `names:` appears only when the certificate has subject alternative names, and a
    /// `self-signed: yes` line only for a self-signed certificate.
    static func text(_ entries: [PinnedCertificate]) -> String {
        entries.map { entry in
            let certificate = entry.certificate
            var lines = ["\(entry.source) [\(entry.index)/\(entry.count)]"]
            lines.append(field("subject", certificate.subject))
            lines.append(field("issuer", certificate.issuer))
            if !certificate.subjectAlternativeNames.isEmpty {
                lines.append(field("names", certificate.subjectAlternativeNames.map(\.description).joined(separator: ", ")))
            }
            if certificate.isSelfSigned { lines.append(field("self-signed", "yes")) }
            lines.append(field("valid", "\(iso8601(certificate.notValidBefore)) to \(iso8601(certificate.notValidAfter))"))
            lines.append(field("sha256", fingerprint(certificate)))
            lines.append(field("pin", certificate.publicKey.pin))
            return lines.joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    /// One JSON array, an object per certificate with the keys `file`, `index` (from 1),
    /// `count`, `subject`, `issuer`, `subjectAlternativeNames` (`["DNS:localhost", …]`),
    /// `notBefore`, `notAfter`, `selfSigned`, `sha256` and `pin`; keys sorted, pretty-printed.
    static func json(_ entries: [PinnedCertificate]) -> String {
        let records = entries.map { entry in
            let certificate = entry.certificate
            return Record(
                file: entry.source, index: entry.index, count: entry.count,
                subject: certificate.subject, issuer: certificate.issuer,
                subjectAlternativeNames: certificate.subjectAlternativeNames.map(\.description),
                notBefore: iso8601(certificate.notValidBefore), notAfter: iso8601(certificate.notValidAfter),
                selfSigned: certificate.isSelfSigned, sha256: fingerprint(certificate), pin: certificate.publicKey.pin)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and booleans only: encoding cannot fail.
        let data = (try? encoder.encode(records)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The JSON shape of one certificate.
    private struct Record: Encodable {
        let file: String
        let index: Int
        let count: Int
        let subject: String
        let issuer: String
        let subjectAlternativeNames: [String]
        let notBefore: String
        let notAfter: String
        let selfSigned: Bool
        let sha256: String
        let pin: String
    }

    /// `  label:` padded to a fixed column, then the value.
    private static func field(_ label: String, _ value: String) -> String {
        let name = label + ":"
        return "  " + name + String(repeating: " ", count: max(1, 13 - name.count)) + value
    }

    /// `5B:AF:…`: uppercase hex pairs joined by colons, as openssl prints fingerprints.
    static func fingerprint(_ certificate: Certificate) -> String {
        certificate.sha256Fingerprint.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    /// `2026-11-20T00:00:00Z`.
    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
