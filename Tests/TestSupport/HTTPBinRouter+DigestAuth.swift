// HTTPBinServer's Digest route (RFC 7616): `/digest-auth/QOP/USER/PASSWORD/ALGORITHM[/stale]`.
// The answer is checked by DigestVerifier, which ForwardProxy shares.
import Foundation

extension HTTPBinRouter {
    /// The realm the Digest route names.
    static let digestRealm = "ferry-test@127.0.0.1"

    /// `/digest-auth/auth/user/pass/MD5` answers 200 to a right Digest answer and 401 with a
    /// challenge otherwise; the `stale` variant refuses a first nonce as stale (`stale=true`)
    /// and accepts only the fresh one it then hands out. Stateless: the nonce says which it is.
    static func digestAuth(_ request: HTTPBinRequest, parts: [String]) -> HTTPBinResponse {
        guard parts.count == 5 || (parts.count == 6 && parts[5] == "stale") else {
            return .badRequest("digest-auth/QOP/USER/PASSWORD/ALGORITHM[/stale]")
        }
        let (qop, user, password, algorithm) = (parts[1], parts[2], parts[3], parts[4])
        let staleFirst = parts.count == 6
        guard ["MD5", "MD5-sess", "SHA-256", "SHA-256-sess"].contains(algorithm), qop == "auth" || qop == "none" else {
            return .badRequest("qop auth|none, algorithm MD5, MD5-sess, SHA-256 or SHA-256-sess")
        }
        func challenge(stale: Bool) -> HTTPBinResponse {
            let nonce = (staleFirst && !stale ? "old-" : "new-") + UUID().uuidString.replacingOccurrences(of: "-", with: "")
            var value = "Digest realm=\"\(digestRealm)\", nonce=\"\(nonce)\", opaque=\"0pa9ue\", algorithm=\(algorithm)"
            if qop != "none" { value += ", qop=\"\(qop)\"" }
            if stale { value += ", stale=true" }
            var response = HTTPBinResponse.text("Unauthorized\n", status: .unauthorized)
            response.headers.add(name: "WWW-Authenticate", value: value)
            return response
        }
        guard let field = request.header("authorization"), field.lowercased().hasPrefix("digest "),
              let params = DigestVerifier.parameters(String(field.dropFirst(7))),
              let nonce = params["nonce"], params["opaque"] == "0pa9ue",
              DigestVerifier.verify(
                  params, method: request.method.rawValue, uri: request.head.uri, user: user, password: password,
                  realm: digestRealm, algorithm: algorithm, qop: qop == "none" ? nil : qop) else {
            return challenge(stale: false)
        }
        // A right answer with an old nonce: the credential is fine, the nonce is not.
        if nonce.hasPrefix("old-") { return challenge(stale: true) }
        return .json(["authenticated": true, "user": user])
    }
}
