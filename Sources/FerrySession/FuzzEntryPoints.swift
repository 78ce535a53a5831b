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

    /// A `Location` value in a redirect of each kind from `url`, with a limit of 16 and after 0
    /// and 16 redirects, with and without insecure redirects allowed.
    package static func redirect(location: String, from url: URL) {
        var configuration = SessionConfiguration()
        for allowsInsecure in [true, false] {
            configuration.allowsInsecureRedirects = allowsInsecure
            for status in [301, 302, 303, 307, 308] {
                for followed in [0, 16] {
                    _ = RedirectPolicy.decide(status: status, location: location, request: NetworkRequest(url: url, method: .post),
                                              followed: followed, configuration: configuration)
                }
            }
        }
    }
}
