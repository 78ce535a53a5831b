import CFerryShims
import COpenSSL
import FoundationEssentials

/// A list of OpenSSL `X509` objects, leaf first, held as one `STACK_OF(X509)` that owns a
/// reference to each certificate; everything is freed in `deinit`.
///
/// A ``ServerTrust`` parses its chain into one of these once, so each evaluation hands OpenSSL
/// ready objects instead of parsing DER again. The objects are never changed after creation
/// (OpenSSL caches extension flags inside them under its own lock), so sharing across threads
/// is safe.
final class X509Chain: @unchecked Sendable {
    /// The `STACK_OF(X509)*`.
    let stack: OpaquePointer

    /// Adopts `stack`: its references become this chain's, freed in `deinit`.
    init(adopting stack: OpaquePointer) {
        self.stack = stack
    }

    /// Parses `certificates` into OpenSSL objects. Nil only when memory runs out (the
    /// certificates parsed once already).
    convenience init?(certificates: [Certificate]) {
        guard let stack = OPENSSL_sk_new_null() else { return nil }
        self.init(adopting: stack)
        for certificate in certificates {
            guard let x509 = try? Self.parse(certificate) else { return nil }
            guard OPENSSL_sk_push(stack, UnsafeRawPointer(x509)) > 0 else {
                X509_free(x509)
                return nil
            }
        }
    }

    /// Takes a new reference to every certificate of a borrowed `STACK_OF(X509)*`.
    convenience init?(upRefOf borrowed: OpaquePointer) {
        guard let copy = X509_chain_up_ref(borrowed) else { return nil }
        self.init(adopting: copy)
    }

    deinit {
        while let x509 = OPENSSL_sk_pop(stack) {
            X509_free(OpaquePointer(x509))
        }
        OPENSSL_sk_free(stack)
    }

    /// When every certificate of the chain is valid: the latest start to the earliest end of
    /// their validity periods. Nil for an empty chain or an unreadable date.
    var validityOverlap: (from: Date, until: Date)? {
        var from = Date.distantPast
        var until = Date.distantFuture
        for index in 0..<count {
            guard let x509 = self[index],
                  let start = Certificate.date(X509_get0_notBefore(x509)),
                  let end = Certificate.date(X509_get0_notAfter(x509)) else { return nil }
            from = max(from, start)
            until = min(until, end)
        }
        return count > 0 ? (from, until) : nil
    }

    /// How many certificates the chain holds.
    var count: Int { Int(OPENSSL_sk_num(stack)) }

    /// The borrowed `X509*` at `index` (0 is the leaf).
    subscript(index: Int) -> OpaquePointer? {
        OPENSSL_sk_value(stack, Int32(index)).map { OpaquePointer($0) }
    }

    /// The certificates as ``Certificate`` values. Those byte-equal to one of `known` are
    /// taken from it rather than parsed again; only certificates OpenSSL added from a trust
    /// store are new.
    func certificates(reusing known: [Certificate]) -> [Certificate] {
        (0..<count).compactMap { index -> Certificate? in
            guard let x509 = self[index],
                  let der = OpenSSLSupport.encoded({ i2d_X509(x509, $0) }) else { return nil }
            if let match = known.first(where: { $0.derRepresentation == der }) { return match }
            return try? Certificate(x509: x509)
        }
    }

    /// A new `X509*` (owned by the caller) parsed from `certificate`'s DER bytes.
    static func parse(_ certificate: Certificate) throws(CertificateError) -> OpaquePointer {
        let x509 = certificate.derRepresentation.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let x509 else {
            throw CertificateError(.invalidDER, detail: "\(certificate.subject): \(OpenSSLSupport.drainErrors())")
        }
        return x509
    }
}
