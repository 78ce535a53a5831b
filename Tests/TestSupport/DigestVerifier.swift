// The server side of Digest authentication (RFC 7616), shared by HTTPBinServer's
// `/digest-auth` route and ForwardProxy's proxy authentication. Written apart from Ferry's
// client so that each checks the other.
import COpenSSL

/// Internal: parses a Digest answer (`Authorization` or `Proxy-Authorization`) and checks its
/// `response` against the password. Challenges, nonces and `opaque` stay with each server.
enum DigestVerifier {
    /// The auth-params of a Digest answer, the text after `Digest `: `name=value` or
    /// `name="quoted"`, comma-separated.
    /// - Parameter text: the field value without the scheme.
    /// - Returns: the parameters by lower-cased name, or `nil` when the text is malformed.
    static func parameters(_ text: String) -> [String: String]? {
        var result: [String: String] = [:]
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard !rest.isEmpty else { return result }
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let name = String(rest[..<equals]).trimmingSpaces.lowercased()
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
                result[name] = String(rest[..<end]).trimmingSpaces
                rest = rest[end...]
            }
        }
    }

    /// Whether `params` is a right answer for `user` and `password`: the username, realm, uri
    /// and algorithm match, the qop fields are present when `qop` is set, and `response` is
    /// the expected one. Nonce and `opaque` are the caller's to check.
    /// - Parameters:
    ///   - params: the parsed answer (``parameters(_:)``).
    ///   - method: the request's method, e.g. `"GET"` or `"CONNECT"`.
    ///   - uri: the request target the answer must name.
    ///   - user: the expected user name.
    ///   - password: the password.
    ///   - realm: the realm the challenge named.
    ///   - algorithm: `MD5`, `MD5-sess`, `SHA-256` or `SHA-256-sess`; an answer without an
    ///     `algorithm` parameter means MD5.
    ///   - qop: `"auth"`, or `nil` for the RFC 2069 form without qop.
    /// - Returns: `true` when every check passes.
    static func verify(
        _ params: [String: String], method: String, uri: String,
        user: String, password: String, realm: String, algorithm: String, qop: String?
    ) -> Bool {
        guard let nonce = params["nonce"], params["username"] == user, params["realm"] == realm,
              params["uri"] == uri, (params["algorithm"] ?? "MD5").lowercased() == algorithm.lowercased(),
              let given = params["response"] else {
            return false
        }
        let cnonce = params["cnonce"] ?? ""
        var nc = ""
        if let qop {
            guard params["qop"] == qop, let count = params["nc"], count.count == 8, !cnonce.isEmpty else { return false }
            nc = count
        }
        let expected = response(
            algorithm: algorithm, user: user, realm: realm, password: password, method: method, uri: uri,
            nonce: nonce, nc: nc, cnonce: cnonce, qop: qop)
        return given == expected
    }

    /// The `response` parameter of RFC 7616 §3.4.1, in lower-case hex.
    /// - Parameters:
    ///   - algorithm: `MD5`, `MD5-sess`, `SHA-256` or `SHA-256-sess` (case-insensitive).
    ///   - user: the user name.
    ///   - realm: the realm.
    ///   - password: the password.
    ///   - method: the request's method.
    ///   - uri: the answer's `uri`.
    ///   - nonce: the server's nonce.
    ///   - nc: the nonce count, 8 hex digits (unused without `qop`).
    ///   - cnonce: the client's nonce (unused without `qop`, except by the `-sess` variants).
    ///   - qop: `"auth"`, or `nil` for the RFC 2069 form.
    /// - Returns: the hex digest the client must send.
    static func response(
        algorithm: String, user: String, realm: String, password: String, method: String, uri: String,
        nonce: String, nc: String, cnonce: String, qop: String?
    ) -> String {
        let sha256 = algorithm.uppercased().hasPrefix("SHA-256")
        let hash = { (text: String) in hexDigest(text, sha256: sha256) }
        var ha1 = hash("\(user):\(realm):\(password)")
        if algorithm.lowercased().hasSuffix("-sess") { ha1 = hash("\(ha1):\(nonce):\(cnonce)") }
        let ha2 = hash("\(method):\(uri)")
        guard let qop else { return hash("\(ha1):\(nonce):\(ha2)") }
        return hash("\(ha1):\(nonce):\(nc):\(cnonce):\(qop):\(ha2)")
    }

    /// MD5 or SHA-256 of `text`'s UTF-8 bytes, in lower-case hex.
    /// - Parameters:
    ///   - text: the input.
    ///   - sha256: SHA-256 when `true`, MD5 otherwise.
    /// - Returns: the digest as lower-case hex.
    static func hexDigest(_ text: String, sha256: Bool) -> String {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, sha256 ? EVP_sha256() : EVP_md5(), nil)
        }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(Int(length) * 2)
        for byte in output.prefix(Int(length)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
