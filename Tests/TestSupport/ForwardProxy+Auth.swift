// ForwardProxy's proxy authentication (RFC 9110 §11.7.1-§11.7.2): the settings, the
// `Proxy-Authenticate` challenges and the check of `Proxy-Authorization`.
import FerryBase
import FoundationEssentials
import Synchronization

extension ForwardProxy {
    /// How the proxy asks clients to authenticate. Without valid credentials a request or a
    /// CONNECT gets `407 Proxy Authentication Required` with `Proxy-Authenticate`, and the
    /// connection stays open for the retry (unless the client asked to close).
    public enum Authentication: Sendable, Equatable {
        /// Every request is served without credentials.
        case none
        /// `Proxy-Authenticate: Basic realm="…"`; `Proxy-Authorization: Basic base64(user:password)` passes.
        case basic(user: String, password: String, realm: String = "ferry-proxy")
        /// One `Proxy-Authenticate: Digest …` challenge per algorithm, in the order given, each
        /// with `qop="auth"`, a fresh nonce and an `opaque` the answer must echo. The answer's
        /// `uri` must be the request target exactly (`host:port` for CONNECT), or for an
        /// absolute-form target its origin-form (`/path?query`), which is what curl sends (and
        /// Squid accepts); ``ForwardProxy/receivedRequests`` shows which a client sent. A right
        /// answer to a nonce the proxy no longer knows gets a challenge with `stale=true`.
        /// Nonce counts are not checked for replays.
        case digest(user: String, password: String, realm: String = "ferry-proxy", algorithms: [DigestAlgorithm] = [.sha256, .md5])
    }

    /// A Digest algorithm the proxy offers (RFC 7616 §3.2).
    public enum DigestAlgorithm: String, Sendable, Equatable, CaseIterable {
        /// `MD5`, the default of RFC 2617 clients.
        case md5 = "MD5"
        /// `SHA-256`.
        case sha256 = "SHA-256"
    }
}

/// Internal: decides whether a request carries valid `Proxy-Authorization`, and builds the
/// challenge when it does not. Thread-safe: the nonces it handed out sit behind a lock.
final class ProxyAuthenticator: Sendable {
    /// The verdict on one request.
    enum Decision {
        /// Serve it.
        case allow
        /// Answer 407 with these `Proxy-Authenticate` values.
        case challenge([String])
    }

    /// The most nonces remembered; the oldest are forgotten first (and then answered stale).
    static let nonceLimit = 1024

    let authentication: ForwardProxy.Authentication
    private let opaque = ProxyAuthenticator.randomHex(bytes: 8)
    private let nonces = Locked<[String]>([])

    init(_ authentication: ForwardProxy.Authentication) {
        self.authentication = authentication
    }

    /// Checks `head`'s `Proxy-Authorization` fields (any one that passes is enough).
    /// - Parameters:
    ///   - head: the request.
    ///   - originForm: for an absolute-form target, its `/path?query`: a Digest `uri` may
    ///     name that instead of the whole target.
    func decide(_ head: ProxyRequestHead, originForm: String?) -> Decision {
        let answers = head.values(of: "proxy-authorization")
        switch authentication {
        case .none:
            return .allow
        case .basic(let user, let password, let realm):
            let expected = Array("\(user):\(password)".utf8)
            for answer in answers {
                guard let (scheme, rest) = Self.split(answer), scheme == "basic",
                      let decoded = Data(base64Encoded: rest) else { continue }
                if Array(decoded) == expected { return .allow }
            }
            return .challenge(["Basic realm=\"\(realm)\""])
        case .digest(let user, let password, let realm, let algorithms):
            var stale = false
            for answer in answers {
                guard let (scheme, rest) = Self.split(answer), scheme == "digest",
                      let params = DigestVerifier.parameters(rest), params["opaque"] == opaque,
                      let nonce = params["nonce"] else { continue }
                let named = (params["algorithm"] ?? "MD5").lowercased()
                guard let algorithm = algorithms.first(where: { $0.rawValue.lowercased() == named }),
                      let uri = params["uri"], uri == head.target || uri == originForm else { continue }
                let right = DigestVerifier.verify(
                    params, method: head.method, uri: uri, user: user, password: password,
                    realm: realm, algorithm: algorithm.rawValue, qop: "auth")
                guard right else { continue }
                if nonces.withLock({ $0.contains(nonce) }) { return .allow }
                stale = true
            }
            let nonce = issueNonce()
            return .challenge(algorithms.map { algorithm in
                var value = "Digest realm=\"\(realm)\", qop=\"auth\", algorithm=\(algorithm.rawValue)"
                value += ", nonce=\"\(nonce)\", opaque=\"\(opaque)\""
                if stale { value += ", stale=true" }
                return value
            })
        }
    }

    /// A fresh nonce, remembered (at most ``nonceLimit``).
    private func issueNonce() -> String {
        let nonce = Self.randomHex(bytes: 16)
        nonces.withLock { nonces in
            if nonces.count >= Self.nonceLimit { nonces.removeFirst(nonces.count - Self.nonceLimit + 1) }
            nonces.append(nonce)
        }
        return nonce
    }

    /// `("basic", "dXNlcjpwYXNz")` from `Basic dXNlcjpwYXNz`: the lower-cased scheme and the rest.
    private static func split(_ answer: String) -> (String, String)? {
        let trimmed = answer.trimmingSpaces
        guard let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return nil }
        return (trimmed[..<space].lowercased(), String(trimmed[space...]).trimmingSpaces)
    }

    /// `bytes` random bytes as lower-case hex.
    private static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
