// MessageDigest: MD5, SHA-256 and SHA-512/256 against published test vectors (RFC 1321 §A.5,
// FIPS 180-4's examples as NIST lists them).
import Testing

@testable import FerryTLS

@Suite("Message digests")
struct MessageDigestTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let algorithm: MessageDigest.Algorithm
        let input: String
        let hex: String
        var testDescription: String { "\(algorithm) of \"\(input.prefix(20))\"" }
    }

    static let vectors: [Vector] = [
        Vector(algorithm: .md5, input: "", hex: "d41d8cd98f00b204e9800998ecf8427e"),
        Vector(algorithm: .md5, input: "abc", hex: "900150983cd24fb0d6963f7d28e17f72"),
        Vector(algorithm: .md5, input: "message digest", hex: "f96b697d7cb7938d525a2f31aaf161d0"),
        Vector(algorithm: .md5, input: "The quick brown fox jumps over the lazy dog", hex: "9e107d9d372bb6826bd81d3542a419d6"),
        Vector(algorithm: .sha256, input: "", hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(algorithm: .sha256, input: "abc", hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(algorithm: .sha256, input: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
               hex: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        Vector(algorithm: .sha512_256, input: "", hex: "c672b8d1ef56ed28ab87c3622c5114069bdd3ad7b8f9737498d0c01ecef0967a"),
        Vector(algorithm: .sha512_256, input: "abc", hex: "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"),
    ]

    @Test("known vectors, in lowercase hex", arguments: vectors)
    func knownVector(_ vector: Vector) {
        #expect(MessageDigest.hex(vector.algorithm, of: vector.input) == vector.hex)
    }

    @Test("a million a's (the long FIPS vector)")
    func millionAs() {
        let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(MessageDigest.hex(.sha256, of: input) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(MessageDigest.hex(.md5, of: input) == "7707d6ae4e027c70eea2a935c2296f21")
    }

    @Test("text is hashed as its UTF-8 bytes", arguments: MessageDigest.Algorithm.allCases)
    func utf8(_ algorithm: MessageDigest.Algorithm) {
        let text = "J\u{E4}s\u{F8}n Doe"
        #expect(MessageDigest.digest(algorithm, of: text) == MessageDigest.digest(algorithm, of: Array(text.utf8)))
        #expect(MessageDigest.digest(algorithm, of: text)?.count == algorithm.byteCount)
        #expect(MessageDigest.hex(algorithm, of: text)?.count == algorithm.byteCount * 2)
    }
}
