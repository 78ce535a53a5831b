import Ferry
import Testing

/// One row of a policy table: a policy, a server chain, a domain, and the exact verdict.
struct PolicyCase: Sendable, CustomTestStringConvertible {
    /// What the evaluation must give.
    enum Verdict: Sendable, CustomStringConvertible {
        case passes
        case refused
        case untrusted(TrustFailure.Reason)
        /// A pinning mismatch; with a reason when the chain did not verify against the pins.
        case pinningMismatch(TrustFailure.Reason?)

        var description: String {
            switch self {
            case .passes: "passes"
            case .refused: "refused"
            case .untrusted(let reason): "untrusted (\(reason))"
            case .pinningMismatch(let reason?): "pinning mismatch (\(reason))"
            case .pinningMismatch(nil): "pinning mismatch"
            }
        }
    }

    let id: String
    let name: String
    let mode: SecurityPolicy.PinningMode
    /// Certificates pinned, by file name.
    let pins: [String]
    /// Public-key pins: the key of each named certificate, or a literal `sha256//…` pin.
    let keyPins: [String]
    let allowInvalid: Bool
    let validatesDomain: Bool
    let chain: [String]
    let host: String
    let domain: String?
    let verdict: Verdict

    var testDescription: String { "\(id) \(name) → \(verdict)" }

    /// The httpbin.org chain of AFNetworking's tests: here the leaf and its intermediate.
    static let site = ["leaf", "intermediate-ca"]
    /// The ADN chain of AFNetworking's tests, valid but another site's: the other CA's leaf.
    static let otherSite = ["other-leaf"]

    init(_ id: String, _ name: String, mode: SecurityPolicy.PinningMode = .none, pins: [String] = [], keyPins: [String] = [],
         allowInvalid: Bool = false, validatesDomain: Bool = true, chain: [String] = site, host: String = "localhost",
         domain: String? = "localhost", _ verdict: Verdict) {
        self.id = id
        self.name = name
        self.mode = mode
        self.pins = pins
        self.keyPins = keyPins
        self.allowInvalid = allowInvalid
        self.validatesDomain = validatesDomain
        self.chain = chain
        self.host = host
        self.domain = domain
        self.verdict = verdict
    }

    func policy() throws -> SecurityPolicy {
        var policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: Set(try pins.map(PolicyFixtures.certificate)))
        policy.pinnedPublicKeyHashes = Set(try keyPins.map { pin in
            pin.hasPrefix("sha256//") ? try PublicKeyPin(pin) : PublicKeyPin(try PolicyFixtures.certificate(pin).publicKey)
        })
        policy.allowInvalidCertificates = allowInvalid
        policy.validatesDomainName = validatesDomain
        return policy
    }

    /// Evaluates the case and checks the verdict exactly, and that `isTrusted` agrees.
    func check(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let policy = try policy()
        let trust = try PolicyFixtures.trust(host, chain)
        let error: ServerTrustError?
        do {
            try policy.evaluate(trust, forDomain: domain)
            error = nil
        } catch let thrown {
            error = thrown
        }
        #expect(policy.isTrusted(trust, forDomain: domain) == (error == nil), sourceLocation: sourceLocation)
        switch verdict {
        case .passes:
            #expect(error == nil, "\(error?.description ?? "")", sourceLocation: sourceLocation)
        case .refused:
            #expect(error?.kind == .refused, "\(error?.description ?? "passed")", sourceLocation: sourceLocation)
        case .untrusted(let reason):
            #expect(error?.kind == .untrusted, "\(error?.description ?? "passed")", sourceLocation: sourceLocation)
            #expect(error?.trustFailure?.reason == reason, "\(error?.description ?? "passed")", sourceLocation: sourceLocation)
        case .pinningMismatch(let reason):
            #expect(error?.kind == .pinningMismatch, "\(error?.description ?? "passed")", sourceLocation: sourceLocation)
            #expect(error?.trustFailure?.reason == reason, "\(error?.description ?? "passed")", sourceLocation: sourceLocation)
        }
        if let error {
            #expect(error.host == domain ?? host, sourceLocation: sourceLocation)
        }
    }
}
