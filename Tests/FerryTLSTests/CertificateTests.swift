import Foundation
import FerryTLS
import Testing

@Suite("Certificate parsing")
struct CertificateTests {
    /// `openssl x509 -in leaf.pem -noout -fingerprint -sha256`, computed once when the
    /// certificates were generated (regenerating them changes it: see the folder's README).
    static let leafFingerprint = "5baf665b9f20dcb7b1d872dde43fc04cf0dc00d179254bba11927e086c194a3f"
    /// `openssl x509 -in root-ca.pem -noout -fingerprint -sha256`, computed once.
    static let rootFingerprint = "0b5dff1706ce08d2795fd373ff0c603f062c4671cda8347412baa90ebb4dc455"

    @Test("every committed certificate parses", arguments: TestCertificates.names)
    func everyCertificateParses(name: String) throws {
        let certificate = try TestCertificates.certificate(name)
        #expect(!certificate.derRepresentation.isEmpty)
        #expect(certificate.sha256Fingerprint.count == 32)
        #expect(certificate.publicKey.sha256.count == 32)
    }

    @Test("the DER of the PEM leaf equals openssl x509 -outform der")
    func derRoundTrip() throws {
        let fromPEM = try TestCertificates.certificate("leaf")
        let der = try TestCertificates.bytes("leaf.der")
        #expect(fromPEM.derRepresentation == der)
        let fromDER = try Certificate(derEncoded: der)
        #expect(fromDER == fromPEM)
        #expect(fromDER.subject == fromPEM.subject)
        #expect(Set([fromDER, fromPEM]).count == 1)
    }

    @Test("subject and issuer are one-line RFC 2253 text")
    func names() throws {
        let leaf = try TestCertificates.certificate("leaf")
        #expect(leaf.subject == "CN=localhost,O=Ferry Test")
        #expect(leaf.issuer == "CN=Ferry Test Intermediate CA,O=Ferry Test")
        let intermediate = try TestCertificates.certificate("intermediate-ca")
        #expect(intermediate.subject == "CN=Ferry Test Intermediate CA,O=Ferry Test")
        #expect(intermediate.issuer == "CN=Ferry Test Root CA,O=Ferry Test")
        let noNames = try TestCertificates.certificate("self-signed-no-names")
        #expect(noNames.subject == "O=Ferry Test")
        #expect(try TestCertificates.certificate("wildcard").subject == "CN=*.localhost,O=Ferry Test")
    }

    @Test("subject alternative names: DNS names and IPv4/IPv6 addresses")
    func alternativeNames() throws {
        let leaf = try TestCertificates.certificate("leaf")
        #expect(leaf.subjectAlternativeNames == [.dnsName("localhost"), .ipAddress("127.0.0.1"), .ipAddress("::1")])
        #expect(try TestCertificates.certificate("wildcard").subjectAlternativeNames == [.dnsName("*.localhost")])
        #expect(try TestCertificates.certificate("wrong-host").subjectAlternativeNames == [.dnsName("wrong.example")])
        #expect(try TestCertificates.certificate("self-signed-san").subjectAlternativeNames == [.dnsName("localhost")])
        #expect(try TestCertificates.certificate("self-signed-cn-only").subjectAlternativeNames.isEmpty)
        #expect(try TestCertificates.certificate("self-signed-no-names").subjectAlternativeNames.isEmpty)
        #expect(SubjectAlternativeName.ipAddress("::1").description == "IP:::1")
    }

    @Test("the deliberately expired and not-yet-valid leaves have their fixed dates")
    func deliberateDates() throws {
        let expired = try TestCertificates.certificate("expired")
        #expect(expired.notValidBefore == TestCertificates.date(2000, 1, 1))
        #expect(expired.notValidAfter == TestCertificates.date(2001, 1, 1))
        let future = try TestCertificates.certificate("not-yet-valid")
        #expect(future.notValidBefore == TestCertificates.date(2090, 1, 1))
        #expect(future.notValidAfter == TestCertificates.date(2100, 12, 31, 23, 59, 59))
        let leaf = try TestCertificates.certificate("leaf")
        #expect(leaf.notValidBefore == TestCertificates.date(2026, 11, 20))
    }

    /// The suite's promise: nothing but the two deliberate ones is invalid now or expires
    /// within 50 years of 2026-11-21.
    @Test("every other certificate is valid now and for 50 years from 2026-11-21",
          arguments: TestCertificates.names.filter { $0 != "expired" && $0 != "not-yet-valid" })
    func longLived(name: String) throws {
        let certificate = try TestCertificates.certificate(name)
        #expect(certificate.notValidBefore <= Date())
        #expect(certificate.notValidAfter >= TestCertificates.date(2076, 11, 21))
    }

    @Test("the SHA-256 fingerprint equals openssl x509 -fingerprint -sha256")
    func fingerprint() throws {
        let leaf = try TestCertificates.certificate("leaf")
        #expect(leaf.sha256FingerprintHex == Self.leafFingerprint)
        #expect(try TestCertificates.certificate("root-ca").sha256FingerprintHex == Self.rootFingerprint)
        #expect(leaf.description.contains(Self.leafFingerprint))
    }

    @Test("self-signed: roots and self-signed leaves, not CA-issued certificates")
    func selfSigned() throws {
        for name in ["root-ca", "other-ca", "self-signed-cn-only", "self-signed-san", "self-signed-no-names"] {
            #expect(try TestCertificates.certificate(name).isSelfSigned, "\(name)")
        }
        for name in ["intermediate-ca", "leaf", "client", "other-leaf"] {
            #expect(try !TestCertificates.certificate(name).isSelfSigned, "\(name)")
        }
    }

    @Test("a PEM chain gives every certificate in order; init(pemEncoded:) the first")
    func chain() throws {
        let text = try TestCertificates.text("chain.pem")
        let chain = try Certificate.certificates(fromPEM: text)
        #expect(chain == [try TestCertificates.certificate("leaf"), try TestCertificates.certificate("intermediate-ca")])
        #expect(try Certificate(pemEncoded: text) == chain[0])
        // A key block before the certificate is skipped.
        let keyThenCertificate = try TestCertificates.text("leaf.key") + TestCertificates.text("leaf.pem")
        #expect(try Certificate(pemEncoded: keyThenCertificate) == chain[0])
    }

    @Test("directory loading finds every certificate of every .pem and .der file, in name order")
    func directory() throws {
        let all = try Certificate.certificates(inDirectory: TestCertificates.directory)
        // 15 PEM files with one certificate, chain.pem with two, leaf.der.
        #expect(all.count == 17)
        #expect(Set(all).count == TestCertificates.names.count)
        for name in TestCertificates.names {
            #expect(all.contains(try TestCertificates.certificate(name)), "\(name)")
        }
        #expect(all.first == (try TestCertificates.certificate("leaf")))  // chain.pem sorts first
    }
}
