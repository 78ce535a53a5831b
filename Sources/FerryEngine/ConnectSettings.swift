import FerryIO

/// How a session's engine opens connections: decided once, when the engine is made, for every
/// exchange it will run (a session's exchanges all share them).
package struct ConnectSettings: Sendable {
    /// Longest wait for a new connection: TCP (every Happy Eyeballs attempt), the TLS
    /// handshake and the trust evaluation together, as curl's connect timeout.
    package var timeout: Duration
    /// Addresses to connect to instead of resolving a host, by lower-case host name (curl's
    /// `--resolve`); the host still names the server for SNI, certificate checks and `Host`.
    package var resolvedAddresses: [String: String]
    /// Judges the server's chain on new TLS connections; nil applies the default evaluation
    /// (a valid chain to the TLS configuration's trust store, for the host) on the loop.
    package var serverTrustCheck: ServerTrustCheck?
    /// Picks a client certificate when a server asks and the TLS configuration has none (the
    /// TLS context must be made with `asksForClientIdentity`); nil sends none.
    package var clientIdentityProvider: ClientIdentityProvider?

    /// Creates settings.
    package init(
        timeout: Duration = .seconds(60), resolvedAddresses: [String: String] = [:], serverTrustCheck: ServerTrustCheck? = nil,
        clientIdentityProvider: ClientIdentityProvider? = nil
    ) {
        self.timeout = timeout
        self.resolvedAddresses = resolvedAddresses
        self.serverTrustCheck = serverTrustCheck
        self.clientIdentityProvider = clientIdentityProvider
    }
}
