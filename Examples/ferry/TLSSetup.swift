import Ferry
import FoundationEssentials

/// The TLS half of the session's configuration, read from ``TLSOptions``: the trust roots,
/// the client identity and the server trust evaluator.
///
/// Files are read once, before the first transfer. A file that cannot be used does not stop
/// the run at once: as with curl, only https transfers fail, with ``failure``'s exit code (77
/// bad CA file, 58 bad client certificate, 90 unusable pin), whether the URL or a redirect
/// names https, and a plain-http URL on the same command line is fetched as usual.
struct TLSSetup: Sendable {
    /// Why https cannot be fetched with the options: curl's exit code and its sentence.
    struct Failure: Error, Sendable, Equatable {
        let exitCode: ExitCode
        let message: String
    }

    /// Trust store and client identity.
    private(set) var configuration = TLSConfiguration()
    /// nil: the session's default rules (a valid chain to the trust store naming the host).
    private(set) var evaluator: (any ServerTrustEvaluating)?
    /// Set when a file or pin could not be used.
    private(set) var failure: Failure?

    /// Reads every file the options name.
    init(_ options: TLSOptions) {
        configuration.resumesSessions = options.reusesSessions
        do throws(Failure) {
            try load(options)
        } catch {
            failure = error
        }
    }

    /// Puts the trust store, identity and evaluator into `session`.
    func apply(to session: inout SessionConfiguration) {
        session.tlsConfiguration = configuration
        if failure != nil {
            // Fail closed: an https URL reached by a redirect must not be fetched with trust
            // settings other than those asked for. Direct https URLs never get this far.
            session.serverTrustEvaluator = nil
            session.serverTrustEvaluatorsByHost = [:]
            session.requiresServerTrustEvaluatorForEveryHost = true
        } else {
            session.serverTrustEvaluator = evaluator
        }
    }

    private mutating func load(_ options: TLSOptions) throws(Failure) {
        // With -k nothing is checked against trust roots, so curl does not read them: a missing
        // or broken CA file is then harmless.
        if !options.insecure, let path = options.caCertificateFile {
            do {
                configuration.trustStore = try TrustStore(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw Failure(exitCode: .badCAFile, message: "error setting certificate file: \(path) (\(error))")
            }
        }
        if let path = options.clientCertificateFile {
            do {
                configuration.clientIdentity = try ClientIdentity(
                    certificateFile: URL(fileURLWithPath: path), keyFile: options.clientKeyFile.map { URL(fileURLWithPath: $0) })
            } catch {
                throw Failure(exitCode: .badClientCertificate, message: "could not load client certificate \(path): \(error)")
            }
        }
        var evaluators: [any ServerTrustEvaluating] = []
        if options.usesSecurityPolicy {
            evaluators = try Self.policies(options)
        }
        if let pinned = options.pinnedPublicKey {
            // Behind a SecurityPolicy the chain was already judged (or deliberately not).
            let pins = try Self.curlPins(pinned)
            evaluators.append(LeafKeyPinning(pins: pins, requiresTrustedChain: evaluators.isEmpty && !options.insecure))
        }
        evaluator = evaluators.count == 1 ? evaluators[0] : evaluators.isEmpty ? nil : EvaluatorChain(evaluators: evaluators)
    }

    /// AFSecurityPolicy's configuration: one policy per pinning mode asked for (both must pass
    /// when both are), or one policy of mode none for `-k`, `--allow-invalid-certs` or
    /// `--no-validate-domain` alone. `-k` is allowInvalidCertificates without a host check.
    private static func policies(_ options: TLSOptions) throws(Failure) -> [SecurityPolicy] {
        func policy(_ mode: SecurityPolicy.PinningMode, _ certificates: Set<Certificate>) -> SecurityPolicy {
            var policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: certificates)
            policy.allowInvalidCertificates = options.allowInvalidCertificates || options.insecure
            policy.validatesDomainName = options.validatesDomainName && !options.insecure
            return policy
        }
        var policies: [SecurityPolicy] = []
        if !options.pinnedCertificateFiles.isEmpty {
            policies.append(policy(.certificate, try certificates(options.pinnedCertificateFiles, flag: "--pin-cert")))
        }
        if !options.pinnedPublicKeyFiles.isEmpty {
            policies.append(policy(.publicKey, try certificates(options.pinnedPublicKeyFiles, flag: "--pin-pubkey")))
        }
        return policies.isEmpty ? [policy(.none, [])] : policies
    }

    /// Every certificate of every file; a bad file is curl's "bad CA file" (77).
    private static func certificates(_ files: [String], flag: String) throws(Failure) -> Set<Certificate> {
        var certificates: Set<Certificate> = []
        for path in files {
            do {
                certificates.formUnion(try Certificate.certificates(inFile: URL(fileURLWithPath: path)))
            } catch {
                throw Failure(exitCode: .badCAFile, message: "\(flag): error reading certificate file: \(path) (\(error))")
            }
        }
        return certificates
    }

    /// curl's `--pinnedpubkey` argument: `sha256//…` pins separated by `;`, or else the path
    /// of a public key (PEM `PUBLIC KEY` or DER SubjectPublicKeyInfo). curl fails an unusable
    /// one with its pinning exit code, 90.
    static func curlPins(_ argument: String) throws(Failure) -> [PublicKeyPin] {
        if argument.hasPrefix("sha256//") {
            do {
                return try PublicKeyPin.pins(fromCurlList: argument)
            } catch {
                throw Failure(exitCode: .pinningMismatch, message: "--pinnedpubkey: \(error)")
            }
        }
        guard let bytes = FileManager.default.contents(atPath: argument) else {
            throw Failure(exitCode: .pinningMismatch, message: "--pinnedpubkey: cannot read the public key file \(argument)")
        }
        do {
            return [PublicKeyPin(try PublicKey(subjectPublicKeyInfoDER: spki(Array(bytes))))]
        } catch {
            throw Failure(exitCode: .pinningMismatch, message: "--pinnedpubkey: \(argument) is not a public key: \(error)")
        }
    }

    /// The DER bytes of a PEM `PUBLIC KEY` block, or the bytes as they are (DER). A file
    /// holding a certificate is refused by the caller, as curl refuses it: the pin is of a key.
    private static func spki(_ bytes: [UInt8]) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        let begin = "-----BEGIN PUBLIC KEY-----", end = "-----END PUBLIC KEY-----"
        guard let start = text.firstRange(of: begin), let stop = text[start.upperBound...].firstRange(of: end) else {
            return bytes
        }
        let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        return Data(base64Encoded: String(body)).map(Array.init) ?? []
    }
}
