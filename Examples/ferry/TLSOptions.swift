/// The TLS flags of the command line, kept raw (file paths and pin text) until ``TLSSetup``
/// reads them, so parsing never touches the file system.
///
/// curl's flags (`--cacert`, `-k`, `--pinnedpubkey`, `--cert`, `--key`) keep curl's meaning;
/// the Ferry-only ones (`--pin-cert`, `--pin-pubkey`, `--allow-invalid-certs`,
/// `--no-validate-domain`) set up an AFNetworking-style ``SecurityPolicy`` (see CLI.md).
struct TLSOptions: Sendable, Equatable {
    /// `--cacert FILE`: the only trust roots (PEM bundle or DER), instead of the system's.
    var caCertificateFile: String?
    /// `-k, --insecure`: accept any chain and any host name (pins still apply).
    var insecure = false
    /// `--pinnedpubkey`: `sha256//B64[;sha256//B64…]`, or a PEM/DER public-key file.
    var pinnedPublicKey: String?
    /// `--cert FILE`: the client certificate (PEM; the key may follow in the same file).
    var clientCertificateFile: String?
    /// `--key FILE`: the client certificate's private key, when not in the `--cert` file.
    var clientKeyFile: String?
    /// `--pin-cert FILE`, repeatable: certificate pinning mode.
    var pinnedCertificateFiles: [String] = []
    /// `--pin-pubkey FILE`, repeatable: public-key pinning mode (the keys of the certificates).
    var pinnedPublicKeyFiles: [String] = []
    /// `--allow-invalid-certs`: AFSecurityPolicy's allowInvalidCertificates.
    var allowInvalidCertificates = false
    /// `--no-validate-domain` sets this to false: AFSecurityPolicy's validatesDomainName.
    var validatesDomainName = true
    /// `--no-sessionid` sets this to false, as curl: no TLS session is kept for resumption.
    var reusesSessions = true

    /// Whether any Ferry-only policy flag (or `-k`, which is one in curl's clothes) was given.
    var usesSecurityPolicy: Bool {
        insecure || allowInvalidCertificates || !validatesDomainName
            || !pinnedCertificateFiles.isEmpty || !pinnedPublicKeyFiles.isEmpty
    }
}
