import CFerryShims
import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// Small helpers over OpenSSL's C API. Every OpenSSL object they create is freed before they
/// return; callers get Swift values only.
enum OpenSSLSupport {
    /// Takes every entry off this thread's OpenSSL error queue and renders them as one line
    /// (`asn1 encoding routines: too long; …`), leaving the queue empty.
    static func drainErrors() -> String {
        var texts: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            let library = ERR_lib_error_string(code).map { String(cString: $0) } ?? "OpenSSL"
            let reason = ERR_reason_error_string(code).map { String(cString: $0) }
                ?? "error \(cferry_err_get_reason(code))"
            texts.append("\(library): \(reason)")
        }
        return texts.joined(separator: "; ")
    }

    /// Empties this thread's error queue without reading it. Looks first: the queue is
    /// almost always empty already, and clearing walks all its slots (it ran before every
    /// TLS read, 1–2% of a TLS download's CPU).
    static func clearErrors() {
        if ERR_peek_error() != 0 { ERR_clear_error() }
    }

    /// SHA-256 of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { raw in
            digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(raw.baseAddress, raw.count, out.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest with SHA-256 fails only when memory runs out.
        precondition(status == 1, "EVP_Digest(SHA-256) failed: \(drainErrors())")
        return Array(digest.prefix(Int(length)))
    }

    /// Lowercase hexadecimal digits of `bytes`, two per byte, without separators.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Runs `body` with a read-only memory BIO over `bytes`; the BIO is freed afterwards.
    /// Returns nil when OpenSSL cannot allocate the BIO.
    static func withMemoryBIO<R>(over bytes: [UInt8], _ body: (OpaquePointer) -> R) -> R? {
        bytes.withUnsafeBytes { raw -> R? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// What `print` writes into a fresh memory BIO, as UTF-8 text. Nil when OpenSSL fails.
    static func printed(_ print: (OpaquePointer) -> Int32) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard print(bio) >= 0 else { return nil }
        let pending = Int(BIO_ctrl_pending(bio))
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { raw in BIO_read(bio, raw.baseAddress, Int32(clamping: raw.count)) }
        guard read >= 0 else { return nil }
        return String(decoding: bytes.prefix(Int(read)), as: UTF8.self)
    }

    /// The DER encoding an `i2d_…` function writes, or nil when it fails.
    static func encoded(_ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
        let length = i2d(nil)
        guard length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d(&cursor)
        }
        guard written == length else { return nil }
        return bytes
    }

    /// Whether the DER encoding an `i2d_…` function writes is exactly `expected`: encoded into
    /// scratch memory (on the stack when small), so a match allocates nothing.
    static func encoding(_ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32, equals expected: [UInt8]) -> Bool {
        let length = i2d(nil)
        guard length > 0, Int(length) == expected.count else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(length)) { scratch in
            var cursor = scratch.baseAddress
            guard i2d(&cursor) == length else { return false }
            // memcmp: a generic elementsEqual compares byte by byte, about 12,000 instructions
            // for the two certificates of a resumed approval on every handshake.
            return expected.withUnsafeBufferPointer { expectedBytes in
                guard let lhs = expectedBytes.baseAddress, let rhs = scratch.baseAddress else { return false }
                return memcmp(lhs, rhs, Int(length)) == 0
            }
        }
    }

    /// The text form of a raw IP address: dotted quad for 4 bytes, RFC 5952 for 16 bytes.
    static func ipAddressText(_ bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let result = bytes.withUnsafeBytes { raw in
            text.withUnsafeMutableBufferPointer { out in
                inet_ntop(family, raw.baseAddress, out.baseAddress, socklen_t(out.count))
            }
        }
        guard result != nil else { return nil }
        return text.withUnsafeBufferPointer { buffer in
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
