import Foundation
@testable import FerryTLS
import Testing

/// The verdict a resumable session carries: given only for a chain the default rules trust,
/// and holding only while every certificate of the path they built is valid.
@Suite("DefaultTrustApproval")
struct DefaultTrustApprovalTests {
    @Test("a trusted chain is approved for the overlap of its path's validity, root included")
    func trustedChainIsApprovedWithinItsValidity() throws {
        let trust = try TrustFixtures.trust("localhost", ["leaf", "intermediate-ca"])
        let approval = try #require(DefaultTrustApproval(trust))
        #expect(approval.trust.host == "localhost")
        #expect(approval.holds())

        let path = try TrustFixtures.chain(["leaf", "intermediate-ca", "root-ca"])
        let from = try #require(path.map(\.notValidBefore).max())
        let until = try #require(path.map(\.notValidAfter).min())
        #expect(approval.holds(at: from))
        #expect(approval.holds(at: until))
        #expect(!approval.holds(at: from.addingTimeInterval(-1)))
        #expect(!approval.holds(at: until.addingTimeInterval(1)))
    }

    @Test("a chain the default rules refuse gets no approval", arguments: [
        ("localhost", ["leaf"]),                              // missing intermediate
        ("localhost", ["expired", "intermediate-ca"]),       // expired leaf
        ("example.com", ["leaf", "intermediate-ca"]),        // wrong host
        ("localhost", ["self-signed-san"]),                  // unknown issuer
    ])
    func refusedChainGetsNoApproval(host: String, chain: [String]) throws {
        let trust = try TrustFixtures.trust(host, chain)
        #expect(!trust.isTrustedByDefault)
        #expect(DefaultTrustApproval(trust) == nil)
    }

    @Test("a chain is the approved one only when every byte of its encoding matches")
    func encodingsAreComparedByteForByte() {
        let expected: [UInt8] = Array(0..<200).map { UInt8($0 % 251) }
        /// An `i2d_…` function writing `bytes`, as OpenSSL's do: the length when given no
        /// cursor, else the bytes at the cursor, which it advances.
        func writer(_ bytes: [UInt8]) -> (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32 {
            { cursor in
                guard let cursor, let start = cursor.pointee else { return Int32(bytes.count) }
                bytes.withUnsafeBufferPointer { start.update(from: $0.baseAddress!, count: bytes.count) }
                cursor.pointee = start + bytes.count
                return Int32(bytes.count)
            }
        }
        #expect(OpenSSLSupport.encoding(writer(expected), equals: expected))
        var lastByteDiffers = expected
        lastByteDiffers[199] ^= 1
        #expect(!OpenSSLSupport.encoding(writer(lastByteDiffers), equals: expected))
        var firstByteDiffers = expected
        firstByteDiffers[0] ^= 0x80
        #expect(!OpenSSLSupport.encoding(writer(firstByteDiffers), equals: expected))
        #expect(!OpenSSLSupport.encoding(writer(Array(expected.dropLast())), equals: expected))
    }
}
