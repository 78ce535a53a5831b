import FoundationEssentials
import HTTPTypes

/// The decoders of outside bytes that are internal to this module, each run over one input,
/// for the fuzz targets (`Tests/Fuzz`, issue 20's libFuzzer runs and the corpus replay in the
/// test suite). Package-only, and never called by the library itself.
package enum FuzzEntryPoints {
    /// `WWW-Authenticate` / `Proxy-Authenticate` values: parsed, each Digest challenge read,
    /// and the one Ferry would answer chosen, under each scheme policy.
    package static func authenticationChallenges(_ values: [String]) {
        let challenges = HTTPAuthChallenge.parse(values)
        for challenge in challenges where challenge.scheme == "digest" {
            _ = try? DigestChallenge(challenge)
        }
        for policy in [HTTPAuthSchemeChoice.strongest, .basicOnly, .digestOnly] {
            _ = try? HTTPAuthChallenge.choose(from: challenges, allowing: policy)
        }
    }

    /// Resume data as a caller hands it back: decoded, and made into the task it continues.
    package static func resumeData(_ data: Data) {
        _ = try? DownloadResumeData.decode(data)
        _ = DownloadContinuation.task(resumingFrom: data)
    }

    /// A `Location` value in a redirect of each kind from `url` (a request carrying
    /// credentials), after 0 and 15 of 16 redirects, with and without insecure redirects.
    /// - Returns: Why a redirect that was followed broke a rule (it went somewhere other than
    ///   an http(s) URL with a host, or kept a credential across origins); nil when none did.
    package static func redirect(location: String, from url: URL) -> String? {
        var configuration = SessionConfiguration()
        var request = NetworkRequest(url: url, method: .post)
        request.headerFields[.authorization] = "Basic c2VjcmV0"
        request.headerFields[.cookie] = "session=secret"
        request.headerFields[.proxyAuthorization] = "Basic cHJveHk="
        for allowsInsecure in [true, false] {
            configuration.allowsInsecureRedirects = allowsInsecure
            for status in [301, 302, 303, 307, 308] {
                for followed in [0, 15] {
                    let outcome = RedirectPolicy.decide(status: status, location: location, request: request,
                                                        followed: followed, configuration: configuration)
                    guard case .follow(let next) = outcome else { continue }
                    let scheme = next.url.scheme?.lowercased()
                    guard scheme == "http" || scheme == "https", next.url.host(percentEncoded: false)?.isEmpty == false else {
                        return "followed to \(next.url.absoluteString)"
                    }
                    if !allowsInsecure, url.scheme?.lowercased() == "https", scheme == "http" {
                        return "followed https to http: \(next.url.absoluteString)"
                    }
                    if !RedirectPolicy.sameOrigin(url, next.url),
                       next.headerFields[.authorization] != nil || next.headerFields[.cookie] != nil
                        || next.headerFields[.proxyAuthorization] != nil {
                        return "kept a credential on the way to \(next.url.absoluteString)"
                    }
                }
            }
        }
        return nil
    }
}
