import COpenSSL

/// One-shot message digests over OpenSSL's EVP API, for HTTP Digest authentication
/// (RFC 7616 §3.2: MD5, SHA-256, SHA-512/256) and anything else that needs a hash in hex.
///
/// No OpenSSL object outlives a call. A digest is nil only when OpenSSL refuses the algorithm
/// (MD5 under a FIPS-only provider configuration) or runs out of memory; callers turn that
/// into their own error rather than trapping.
package enum MessageDigest {
    /// The hash functions Ferry computes.
    package enum Algorithm: Sendable, Hashable, CaseIterable {
        /// MD5 (RFC 1321): 16 bytes. Broken for signatures; still Digest's default algorithm.
        case md5
        /// SHA-256 (FIPS 180-4): 32 bytes.
        case sha256
        /// SHA-512/256 (FIPS 180-4 §6.7, its own initial values, not a truncated SHA-512):
        /// 32 bytes.
        case sha512_256

        /// The digest's length in bytes.
        package var byteCount: Int {
            switch self {
            case .md5: 16
            case .sha256, .sha512_256: 32
            }
        }

        /// OpenSSL's static method table for the algorithm (owned by OpenSSL, never freed).
        fileprivate var method: OpaquePointer? {
            switch self {
            case .md5: EVP_md5()
            case .sha256: EVP_sha256()
            case .sha512_256: EVP_sha512_256()
            }
        }
    }

    /// The digest of `bytes` under `algorithm`, or nil when OpenSSL cannot compute it.
    package static func digest(_ algorithm: Algorithm, of bytes: [UInt8]) -> [UInt8]? {
        guard let method = algorithm.method else {
            OpenSSLSupport.clearErrors()
            return nil
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { raw in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(raw.baseAddress, raw.count, out.baseAddress, &length, method, nil)
            }
        }
        guard status == 1, Int(length) == algorithm.byteCount else {
            OpenSSLSupport.clearErrors()
            return nil
        }
        return Array(output.prefix(Int(length)))
    }

    /// The digest of `text`'s UTF-8 bytes under `algorithm`, or nil when OpenSSL cannot
    /// compute it.
    package static func digest(_ algorithm: Algorithm, of text: String) -> [UInt8]? {
        digest(algorithm, of: Array(text.utf8))
    }

    /// The digest of `bytes` as lowercase hexadecimal (two digits a byte), or nil when OpenSSL
    /// cannot compute it.
    package static func hex(_ algorithm: Algorithm, of bytes: [UInt8]) -> String? {
        digest(algorithm, of: bytes).map(OpenSSLSupport.hex)
    }

    /// The digest of `text`'s UTF-8 bytes as lowercase hexadecimal, or nil when OpenSSL cannot
    /// compute it.
    package static func hex(_ algorithm: Algorithm, of text: String) -> String? {
        hex(algorithm, of: Array(text.utf8))
    }
}
