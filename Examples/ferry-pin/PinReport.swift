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
    /// `self-signed: yes` line only for a self-signed certificate. For a live server's chain
    /// (`verify` given), an empty line and `verify: ok` (or why the default evaluation failed)
    /// follow the blocks.
    static func text(_ entries: [PinnedCertificate], verify: Verdict? = nil) -> String {
        let blocks = entries.map { entry in
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
        guard let verify else { return blocks }
        return blocks + "\nverify: \(verify.text)\n"
    }

    /// What the default evaluation (a valid chain to the trust store that names the host)
    /// said of a live server's chain.
    struct Verdict: Sendable, Equatable {
        /// `ok`, or the failure in OpenSSL's words with subject and depth.
        let text: String
        /// OpenSSL's `X509_V_ERR_…` code, 0 for ok (curl's `ssl_verify_result`).
        let code: Int

        /// The verdict for a failure, or ok for nil.
        init(_ failure: TrustFailure?) {
            text = failure?.description ?? "ok"
            code = failure.map { Int($0.verifyCode) } ?? 0
        }
    }

    /// One JSON array, an object per certificate with the keys `file`, `index` (from 1),
    /// `count`, `subject`, `issuer`, `subjectAlternativeNames` (`["DNS:localhost", …]`),
    /// `notBefore`, `notAfter`, `selfSigned`, `sha256` and `pin`; keys sorted, pretty-printed.
    /// A live server's chain adds `verify` (`"ok"` or the failure) and `verifyResult` (the
    /// `X509_V_ERR_…` code, 0 when ok) to every object; `file` is then the server.
    static func json(_ entries: [PinnedCertificate], verify: Verdict? = nil) -> String {
        let records = entries.map { entry in
            let certificate = entry.certificate
            return Record(
                file: entry.source, index: entry.index, count: entry.count,
                subject: certificate.subject, issuer: certificate.issuer,
                subjectAlternativeNames: certificate.subjectAlternativeNames.map(\.description),
                notBefore: iso8601(certificate.notValidBefore), notAfter: iso8601(certificate.notValidAfter),
                selfSigned: certificate.isSelfSigned, sha256: fingerprint(certificate), pin: certificate.publicKey.pin,
                verify: verify?.text, verifyResult: verify?.code)
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
        /// Absent (not null) for files: the synthesized encoding skips nil optionals.
        let verify: String?
        let verifyResult: Int?
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
