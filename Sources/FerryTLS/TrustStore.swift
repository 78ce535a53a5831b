import CFerryShims
import COpenSSL
import FoundationEssentials

/// The trust anchors a ``ServerTrust`` is evaluated against by default: the system's roots, or
/// custom roots of your own (curl's `--cacert`).
///
/// A `TrustStore` wraps one OpenSSL `X509_STORE` and never changes after its initializer
/// returns, so one store is safely shared by every connection and thread (OpenSSL locks its
/// own lookups). Build custom stores once and keep them: loading is the expensive part.
public final class TrustStore: @unchecked Sendable {
    /// The system's trust anchors: OpenSSL's default certificate file and directory
    /// (`X509_STORE_set_default_paths`), which honour the `SSL_CERT_FILE` and `SSL_CERT_DIR`
    /// environment variables as curl and `openssl s_client` do. Loaded once, on the first
    /// evaluation that needs it (not when a configuration merely names it: a plain-HTTP session
    /// never reads a CA bundle); the directory's certificates are looked up lazily by subject hash.
    public static let system: TrustStore = TrustStore()

    /// The custom roots this store was made from, in the order given; nil for ``system``.
    public let customCertificates: [Certificate]?

    /// The `X509_STORE*` of a custom store, owned: freed in `deinit`. Nil for ``system``,
    /// whose store is ``systemStore``.
    private let store: OpaquePointer?

    /// An `X509_STORE*` that may cross threads: the store is complete before anyone sees it
    /// and OpenSSL locks its own lookups.
    private struct SharedStore: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// The system roots, built on first use (a global `let` is initialised once, lazily,
    /// thread-safely) and kept for the life of the process.
    private static let systemStore: SharedStore = {
        // Only an exhausted allocator makes X509_STORE_new fail; there is no input to blame.
        guard let store = X509_STORE_new() else {
            fatalError("cannot create the system X509_STORE: \(OpenSSLSupport.drainErrors())")
        }
        // Missing default files are not an error: the store then trusts nothing, and every
        // evaluation reports an unknown issuer, as curl does on a system without CA bundle.
        _ = X509_STORE_set_default_paths(store)
        OpenSSLSupport.clearErrors()
        return SharedStore(pointer: store)
    }()

    /// Creates a store that trusts exactly `certificates` (the system roots are NOT included).
    ///
    /// Each certificate is a trust anchor as it is: a root, or an intermediate or a leaf, where
    /// a chain may end when it reaches no self-signed root of the store (OpenSSL's
    /// `X509_V_FLAG_PARTIAL_CHAIN`, which curl sets for its CA file, as Apple's
    /// `SecTrustSetAnchorCertificates` trusts any anchor). An empty array gives a store that
    /// trusts nothing.
    ///
    /// - Parameter certificates: the trust anchors.
    /// - Throws: ``CertificateError`` when OpenSSL cannot build the store (memory exhausted).
    public convenience init(certificates: [Certificate]) throws(CertificateError) {
        guard let store = X509_STORE_new() else {
            throw CertificateError(.invalidField, detail: "cannot create an X509_STORE: \(OpenSSLSupport.drainErrors())")
        }
        do throws(CertificateError) {
            for certificate in certificates {
                let x509 = try X509Chain.parse(certificate)
                defer { X509_free(x509) }
                // X509_STORE_add_cert takes its own reference and ignores a duplicate.
                guard X509_STORE_add_cert(store, x509) == 1 else {
                    throw CertificateError(.invalidField, detail: "cannot add \(certificate.subject): \(OpenSSLSupport.drainErrors())")
                }
            }
        } catch {
            X509_STORE_free(store)
            throw error
        }
        self.init(store: store, customCertificates: certificates)
    }

    /// Creates a store that trusts exactly the certificates of `file`: every certificate of a
    /// PEM bundle, or the one certificate of a DER file (curl's `--cacert`).
    ///
    /// - Parameter file: a PEM or DER file; the format is told by content.
    /// - Throws: ``CertificateError`` naming the file: ``CertificateError/Kind-swift.struct/unreadableFile``
    ///   when it cannot be read, ``CertificateError/Kind-swift.struct/noCertificate`` when it
    ///   holds none, or the parse error of a malformed certificate.
    public convenience init(contentsOf file: URL) throws(CertificateError) {
        try self.init(certificates: Certificate.certificates(inFile: file))
    }

    /// The system store (its roots load on first use).
    private convenience init() {
        self.init(store: nil, customCertificates: nil)
    }

    private init(store: OpaquePointer?, customCertificates: [Certificate]?) {
        self.store = store
        self.customCertificates = customCertificates
        holdsSelfSignedCertificate = customCertificates?.contains { $0.isSelfSigned } ?? true
    }

    /// Whether a path may end at a self-signed root of this store (always assumed of the
    /// system's): when not, only a partial chain can be trusted, and is looked for at once.
    let holdsSelfSignedCertificate: Bool

    deinit {
        if let store { X509_STORE_free(store) }
    }

    /// Runs `body` with the `X509_STORE*`, which stays valid for the call. Callers must not
    /// change the store; to keep it longer (`SSL_CTX_set1_cert_store`), take a reference.
    ///
    /// - Parameter body: given the borrowed `X509_STORE*`.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    package func withStore<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(store ?? Self.systemStore.pointer) }
    }
}
