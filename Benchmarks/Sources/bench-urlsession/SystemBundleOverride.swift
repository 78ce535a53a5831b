import BenchSupport
import CBenchShims
#if canImport(Glibc)
import Glibc
#endif

/// Makes libcurl, under FoundationNetworking, trust exactly one CA file.
///
/// FoundationNetworking offers no API for trust roots: on Linux it points libcurl's CAINFO at
/// the first system bundle it finds (`/etc/ssl/certs/ca-certificates.crt` on Debian) and ignores
/// `SSL_CERT_FILE`, `CURL_CA_BUNDLE` and `URLSessionCertificateAuthorityInfoFile` (Android only).
/// So this process moves into a mount namespace of its own and bind-mounts the CA file over that
/// bundle: the same trust as `curl --cacert`, for this process only, with nothing changed on the
/// machine.
enum SystemBundleOverride {
    /// The bundles FoundationNetworking looks for, in its order.
    static let candidates = [
        "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
        "/usr/share/ssl/certs/ca-bundle.crt", "/usr/local/share/certs/ca-root-nss.crt", "/etc/ssl/cert.pem",
    ]

    /// Replaces the system bundle with `caFile` for this process. Call it while the process has
    /// one thread: a mount namespace belongs to the thread that enters it.
    /// - Throws: ``BenchError`` naming the step that failed (root, or unprivileged user namespaces,
    ///   are needed).
    static func trust(only caFile: String) throws(BenchError) {
        guard let bundle = candidates.first(where: { access($0, F_OK) == 0 }) else {
            throw BenchError("no system CA bundle to stand in for (install ca-certificates)")
        }
        // Without root, a user namespace grants the right to mount inside it.
        guard bench_unshare_mount_namespace(geteuid() == 0 ? 0 : 1) == 0 else {
            throw BenchError("unshare(CLONE_NEWNS): \(String(cString: strerror(errno))) (needs root or user namespaces)")
        }
        // Private propagation first, so the bind mount never reaches the machine's namespace.
        guard mount("none", "/", nil, UInt(MS_REC | MS_PRIVATE), nil) == 0 else {
            throw BenchError("making / private in the new mount namespace: \(String(cString: strerror(errno)))")
        }
        guard mount(caFile, bundle, nil, UInt(MS_BIND), nil) == 0 else {
            throw BenchError("bind-mounting \(caFile) over \(bundle): \(String(cString: strerror(errno)))")
        }
    }
}
