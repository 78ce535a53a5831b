import Dispatch
import FerryEngine
import FerryTLS

/// The session's side of client certificates: when a server asks for one and the TLS
/// configuration has none, the session delegate's challenge (``AuthenticationMethod/clientCertificate``)
/// picks it, per host, on the delegate queue.
enum ClientIdentityGate {
    /// The engine's provider, asking `challenger` on `queue`.
    static func provider(queue: DispatchQueue, challenger: @escaping ServerTrustGate.Challenger) -> ClientIdentityProvider {
        { host, port, answer in
            queue.async {
                let space = ProtectionSpace(host: host, port: port, protocol: "https", authenticationMethod: .clientCertificate)
                challenger(AuthenticationChallenge(protectionSpace: space)) { disposition, credential in
                    switch disposition {
                    case .useCredential:
                        answer(credential?.identity.map(ClientIdentityAnswer.identity) ?? .none)
                    case .performDefaultHandling, .rejectProtectionSpace:
                        // The configuration has no identity (or none would be asked for): none.
                        answer(.none)
                    case .cancelAuthenticationChallenge:
                        answer(.cancel)
                    }
                }
            }
        }
    }
}
