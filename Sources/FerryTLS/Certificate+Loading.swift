import CFerryShims
import COpenSSL
import FoundationEssentials

extension Certificate {
    /// The file name extensions ``certificates(inDirectory:)`` loads, compared case-insensitively.
    public static let certificateFileExtensions: Set<String> = ["pem", "crt", "cer", "der"]

    /// Parses every `CERTIFICATE` block of PEM text, in order; other blocks are skipped.
    ///
    /// - Throws: ``CertificateError/Kind-swift.struct/noCertificate`` when there is none,
    ///   ``CertificateError/Kind-swift.struct/invalidPEM`` when any block is malformed.
    public static func certificates(fromPEM text: String) throws(CertificateError) -> [Certificate] {
        let all = try PEMReader.read(text, limit: nil)
        guard !all.isEmpty else {
            throw CertificateError(.noCertificate, detail: "no CERTIFICATE block in the PEM text")
        }
        return all
    }

    /// Every certificate in one file: all blocks of a PEM file, or the one certificate of a
    /// DER file. The format is told by content (`-----BEGIN` means PEM), not by extension.
    ///
    /// - Throws: ``CertificateError/Kind-swift.struct/unreadableFile`` when the file cannot be
    ///   read, or the parse error with the file's path in its ``CertificateError/detail``.
    public static func certificates(inFile file: URL) throws(CertificateError) -> [Certificate] {
        let bytes = try CertificateFiles.read(file)
        do {
            if looksLikePEM(bytes) {
                return try certificates(fromPEM: String(decoding: bytes, as: UTF8.self))
            }
            return [try Certificate(derEncoded: bytes)]
        } catch {
            throw CertificateError(error.kind, detail: "\(file.path): \(error.detail)")
        }
    }

    /// Every certificate in the `.pem`, `.crt`, `.cer` and `.der` files directly inside
    /// `directory`, files in name order: the Linux stand-in for AFNetworking's
    /// `certificatesInBundle`. Subdirectories and other files are ignored; an empty directory
    /// gives an empty array. A matching file that holds no valid certificate is an error, so a
    /// broken pin file never goes unnoticed.
    ///
    /// - Throws: ``CertificateError/Kind-swift.struct/unreadableFile`` when the directory or a
    ///   file cannot be read, or the first parse error, naming the file.
    public static func certificates(inDirectory directory: URL) throws(CertificateError) -> [Certificate] {
        var result: [Certificate] = []
        for name in try CertificateFiles.fileNames(in: directory).sorted() {
            let file = directory.appendingPathComponent(name)
            guard certificateFileExtensions.contains(file.pathExtension.lowercased()) else { continue }
            result += try certificates(inFile: file)
        }
        return result
    }

    private static func looksLikePEM(_ bytes: [UInt8]) -> Bool {
        PEMReader.occurrences(of: "-----BEGIN", in: bytes).first != nil
    }
}

/// Reads `CERTIFICATE` blocks from PEM text with OpenSSL's PEM reader.
enum PEMReader {
    /// Up to `limit` certificates (all when nil), in order.
    static func read(_ text: String, limit: Int?) throws(CertificateError) -> [Certificate] {
        OpenSSLSupport.clearErrors()
        let outcome = OpenSSLSupport.withMemoryBIO(over: Array(text.utf8)) { bio -> Result<[Certificate], CertificateError> in
            var found: [Certificate] = []
            while limit.map({ found.count < $0 }) ?? true {
                guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else {
                    let code = ERR_peek_last_error()
                    if code == 0 || cferry_err_is_pem_no_start_line(code) != 0 {
                        OpenSSLSupport.clearErrors()
                        break
                    }
                    let cause = OpenSSLSupport.drainErrors()
                    return .failure(CertificateError(.invalidPEM, detail: "certificate \(found.count + 1): \(cause)"))
                }
                defer { X509_free(x509) }
                switch Result(catching: { () throws(CertificateError) in try Certificate(x509: x509) }) {
                case .success(let certificate): found.append(certificate)
                case .failure(let error): return .failure(error)
                }
            }
            // OpenSSL reports a block it cannot read (an empty body, say) as "no start line",
            // like the end of input: a CERTIFICATE marker left unread means a malformed block.
            let unread = limit.map { found.count < $0 } ?? true
            if unread, beginMarkers(in: text) > found.count {
                return .failure(CertificateError(.invalidPEM, detail: "certificate \(found.count + 1): unreadable CERTIFICATE block"))
            }
            return .success(found)
        }
        guard let outcome else {
            throw CertificateError(.invalidPEM, detail: "cannot allocate a BIO: \(OpenSSLSupport.drainErrors())")
        }
        return try outcome.get()
    }

    /// How many `-----BEGIN CERTIFICATE-----` (or `X509 CERTIFICATE`) lines `text` holds.
    private static func beginMarkers(in text: String) -> Int {
        let bytes = Array(text.utf8)
        return ["-----BEGIN CERTIFICATE-----", "-----BEGIN X509 CERTIFICATE-----"].reduce(0) { count, marker in
            count + occurrences(of: marker, in: bytes).count
        }
    }

    /// The offsets at which `marker` starts in `bytes`, found lazily, in order.
    static func occurrences(of marker: String, in bytes: [UInt8]) -> LazyFilterSequence<Range<Int>> {
        let marker = Array(marker.utf8)
        return (0..<max(0, bytes.count - marker.count + 1)).lazy.filter { start in
            bytes[start] == marker[0] && bytes[start..<start + marker.count].elementsEqual(marker)
        }
    }
}
