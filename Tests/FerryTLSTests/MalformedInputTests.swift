import Foundation
import FerryTLS
import Glibc
import TestSupport
import Testing

@Suite("Malformed certificate input")
struct MalformedInputTests {
    @Test("garbage, empty, truncated and padded DER are invalidDER")
    func invalidDER() throws {
        let der = try TestCertificates.bytes("leaf.der")
        let inputs: [[UInt8]] = [[], [0x30, 0x82, 0xFF, 0xFF, 0x01, 0x02, 0x03], Array("hello".utf8), Array(der.prefix(100)), der + [0x00]]
        for bytes in inputs {
            let error = #expect(throws: CertificateError.self) { try Certificate(derEncoded: bytes) }
            #expect(error?.kind == .invalidDER)
            #expect(error?.detail.isEmpty == false)
        }
    }

    @Test("a truncated or corrupted CERTIFICATE block is invalidPEM, with OpenSSL's reason")
    func invalidPEM() throws {
        let text = try TestCertificates.text("leaf.pem")
        let lines = text.split(separator: "\n")
        let truncated = lines.prefix(3).joined(separator: "\n") + "\n"
        let noBody = "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"
        let badBase64 = "-----BEGIN CERTIFICATE-----\n!!!!not base64!!!!\n-----END CERTIFICATE-----\n"
        let cutBody = ([lines[0]] + lines.dropFirst().prefix(2) + [lines[lines.count - 1]]).joined(separator: "\n") + "\n"
        for input in [truncated, noBody, badBase64, cutBody] {
            let error = #expect(throws: CertificateError.self) { try Certificate(pemEncoded: input) }
            #expect(error?.kind == .invalidPEM, "\(input)")
            #expect(error?.detail.isEmpty == false)
            let all = #expect(throws: CertificateError.self) { try Certificate.certificates(fromPEM: text + input) }
            #expect(all?.kind == .invalidPEM)
        }
    }

    @Test("empty text and a key file hold no certificate")
    func noCertificate() throws {
        for input in ["", "just text\n", try TestCertificates.text("leaf.key")] {
            let first = #expect(throws: CertificateError.self) { try Certificate(pemEncoded: input) }
            #expect(first?.kind == .noCertificate)
            let all = #expect(throws: CertificateError.self) { try Certificate.certificates(fromPEM: input) }
            #expect(all?.kind == .noCertificate)
        }
    }

    @Test("file errors name the file")
    func files() throws {
        let key = TestCertificates.url("leaf.key")
        let keyError = #expect(throws: CertificateError.self) { try Certificate.certificates(inFile: key) }
        #expect(keyError?.kind == .noCertificate)
        #expect(keyError?.detail.contains("leaf.key") == true)

        let missing = TestCertificates.url("no-such-file.pem")
        let missingError = #expect(throws: CertificateError.self) { try Certificate.certificates(inFile: missing) }
        #expect(missingError?.kind == .unreadableFile)
        #expect(missingError?.detail.contains("no-such-file.pem") == true)

        #expect(missingError?.detail.hasSuffix("no-such-file.pem: No such file or directory") == true)

        let noDirectory = TestCertificates.url("no-such-directory")
        let directoryError = #expect(throws: CertificateError.self) { try Certificate.certificates(inDirectory: noDirectory) }
        #expect(directoryError?.kind == .unreadableFile)
        #expect(directoryError?.detail.hasSuffix("no-such-directory: No such file or directory") == true)

        let aDirectory = #expect(throws: CertificateError.self) { try Certificate.certificates(inFile: TestCertificates.directory) }
        #expect(aDirectory?.kind == .unreadableFile)
        #expect(aDirectory?.detail.hasSuffix(": Is a directory") == true)
    }

    @Test("a file too large for a certificate is refused before it is read")
    func tooLarge() throws {
        let scratch = try TemporaryDirectory()
        let path = scratch.path("huge.pem")
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        #expect(fd >= 0)
        #expect(ftruncate(fd, 17 << 20) == 0)  // sparse: no 17 MiB is written
        close(fd)
        let error = #expect(throws: CertificateError.self) { try Certificate.certificates(inFile: URL(fileURLWithPath: path)) }
        #expect(error?.kind == .unreadableFile)
        #expect(error?.detail.contains("larger than 16 MiB") == true)
        let key = #expect(throws: CertificateError.self) {
            try ClientIdentity(certificateFile: TestCertificates.url("client.pem"), keyFile: URL(fileURLWithPath: path))
        }
        #expect(key?.kind == .unreadableFile)
        #expect(key?.detail.contains("huge.pem: larger than 16 MiB") == true)
    }

    @Test("a directory load skips subdirectories, dangling links and other extensions, and follows links")
    func directoryEntries() throws {
        let scratch = try TemporaryDirectory()
        let leaf = try TestCertificates.bytes("leaf.pem")
        #expect(FileManager.default.createFile(atPath: scratch.path("b.pem"), contents: Data(leaf)))
        #expect(FileManager.default.createFile(atPath: scratch.path("notes.txt"), contents: Data("not a certificate".utf8)))
        try FileManager.default.createDirectory(atPath: scratch.path("sub.pem"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("a.pem"), withDestinationPath: scratch.path("b.pem"))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("gone.pem"), withDestinationPath: scratch.path("nowhere"))
        let loaded = try Certificate.certificates(inDirectory: scratch.url)
        let expected = try Certificate.certificates(inFile: TestCertificates.url("leaf.pem"))
        #expect(loaded == expected + expected)
    }

    @Test("kinds compare by name and describe themselves")
    func kinds() {
        let error = CertificateError(.invalidDER, detail: "cause")
        #expect(error.description == "invalid DER encoding: cause")
        #expect(CertificateError.Kind("invalidDER") == .invalidDER)
        #expect(CertificateError(.noCertificate).description == "no certificate found")
    }
}
