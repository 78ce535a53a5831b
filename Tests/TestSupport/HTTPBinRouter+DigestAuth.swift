// HTTPBinServer's Digest route (RFC 7616), written apart from Ferry's client so that each
// checks the other: `/digest-auth/QOP/USER/PASSWORD/ALGORITHM[/stale]`.
import COpenSSL
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
              let params = digestParameters(String(field.dropFirst(7))) else {
            return challenge(stale: false)
        }
        guard let nonce = params["nonce"], params["username"] == user, params["realm"] == digestRealm,
              params["uri"] == request.head.uri, params["opaque"] == "0pa9ue",
              (params["algorithm"] ?? "MD5").lowercased() == algorithm.lowercased(),
              let given = params["response"] else {
            return challenge(stale: false)
        }
        let hash: (String) -> String = algorithm.hasPrefix("SHA-256") ? { hexDigest($0, sha256: true) } : { hexDigest($0, sha256: false) }
        var ha1 = hash("\(user):\(digestRealm):\(password)")
        let cnonce = params["cnonce"] ?? ""
        if algorithm.hasSuffix("-sess") { ha1 = hash("\(ha1):\(nonce):\(cnonce)") }
        let ha2 = hash("\(request.method.rawValue):\(request.head.uri)")
        let expected: String
        if qop == "none" {
            expected = hash("\(ha1):\(nonce):\(ha2)")
        } else {
            guard params["qop"] == qop, let nc = params["nc"], nc.count == 8, !cnonce.isEmpty else { return challenge(stale: false) }
            expected = hash("\(ha1):\(nonce):\(nc):\(cnonce):\(qop):\(ha2)")
        }
        guard given == expected else { return challenge(stale: false) }
        // A right answer with an old nonce: the credential is fine, the nonce is not.
        if nonce.hasPrefix("old-") { return challenge(stale: true) }
        return .json(["authenticated": true, "user": user])
    }

    /// The auth-params of a Digest answer: `name=value` or `name="quoted"`, comma-separated.
    private static func digestParameters(_ text: String) -> [String: String]? {
        var result: [String: String] = [:]
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard !rest.isEmpty else { return result }
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...]
            if rest.first == "\"" {
                var value = ""
                var index = rest.index(after: rest.startIndex)
                while index < rest.endIndex, rest[index] != "\"" {
                    if rest[index] == "\\" { index = rest.index(after: index) }
                    guard index < rest.endIndex else { return nil }
                    value.append(rest[index])
                    index = rest.index(after: index)
                }
                guard index < rest.endIndex else { return nil }
                result[name] = value
                rest = rest[rest.index(after: index)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                result[name] = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
        }
    }

    /// MD5 or SHA-256 of `text`'s UTF-8 bytes, in lower-case hex.
    static func hexDigest(_ text: String, sha256: Bool) -> String {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, sha256 ? EVP_sha256() : EVP_md5(), nil)
        }
        return output.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
