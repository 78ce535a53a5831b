import FerryTLS

/// A request for proof of identity: the counterpart of `URLAuthenticationChallenge`.
///
/// Today a session asks its delegate about one kind: the server's certificate chain
/// (``AuthenticationMethod/serverTrust``), once per new TLS connection, before any request
/// byte is sent. HTTP authentication (Basic, Digest) asks the task's delegate with the same
/// type.
public struct AuthenticationChallenge: Sendable {
    /// Who asks, and how.
    public var protectionSpace: ProtectionSpace
    /// A credential to try, if one is known (from the URL or credential storage).
    public var proposedCredential: Credential?
    /// How many times this protection space failed before for this task.
    public var previousFailureCount: Int
    /// The response that asked (a 401 or 407); nil for a server-trust challenge.
    public var failureResponse: NetworkResponse?

    /// Creates a challenge.
    public init(protectionSpace: ProtectionSpace, proposedCredential: Credential? = nil, previousFailureCount: Int = 0,
                failureResponse: NetworkResponse? = nil) {
        self.protectionSpace = protectionSpace
        self.proposedCredential = proposedCredential
        self.previousFailureCount = previousFailureCount
        self.failureResponse = failureResponse
    }
}

/// Where a challenge comes from: the counterpart of `URLProtectionSpace`. Two spaces are
/// equal when host, port, protocol, realm, method and proxy-ness are (the server's chain is
/// not compared).
public struct ProtectionSpace: Sendable, Hashable {
    /// The server's host (lower case, without IPv6 brackets).
    public var host: String
    /// The server's port.
    public var port: Int
    /// `"http"` or `"https"`.
    public var `protocol`: String
    /// The realm the server named, if any (HTTP authentication).
    public var realm: String?
    /// How the server asks to be answered.
    public var authenticationMethod: AuthenticationMethod
    /// Whether a proxy asks (407, `Proxy-Authenticate`).
    public var isProxy: Bool
    /// The server's certificate chain, for ``AuthenticationMethod/serverTrust``.
    public var serverTrust: ServerTrust?

    /// Creates a protection space.
    public init(host: String, port: Int, protocol: String, realm: String? = nil,
                authenticationMethod: AuthenticationMethod, isProxy: Bool = false, serverTrust: ServerTrust? = nil) {
        self.host = host
        self.port = port
        self.protocol = `protocol`
        self.realm = realm
        self.authenticationMethod = authenticationMethod
        self.isProxy = isProxy
        self.serverTrust = serverTrust
    }

    /// Equal when every field but ``serverTrust`` is.
    public static func == (lhs: ProtectionSpace, rhs: ProtectionSpace) -> Bool {
        lhs.host == rhs.host && lhs.port == rhs.port && lhs.protocol == rhs.protocol && lhs.realm == rhs.realm
            && lhs.authenticationMethod == rhs.authenticationMethod && lhs.isProxy == rhs.isProxy
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(self.protocol)
        hasher.combine(realm)
        hasher.combine(authenticationMethod)
        hasher.combine(isProxy)
    }
}

/// How a server asks to be answered: an open set, as `NSURLAuthenticationMethod…`.
public struct AuthenticationMethod: RawRepresentable, Hashable, Sendable {
    /// The method's name.
    public let rawValue: String
    /// Creates a method from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The server's certificate chain is to be judged (answer with ``Credential/init(trust:)``).
    public static let serverTrust = AuthenticationMethod(rawValue: "serverTrust")
    /// The server asks for a client certificate.
    public static let clientCertificate = AuthenticationMethod(rawValue: "clientCertificate")
    /// HTTP Basic (RFC 7617).
    public static let httpBasic = AuthenticationMethod(rawValue: "httpBasic")
    /// HTTP Digest (RFC 7616).
    public static let httpDigest = AuthenticationMethod(rawValue: "httpDigest")
}

/// What to do about a challenge: URLSession's `AuthChallengeDisposition`.
public enum AuthChallengeDisposition: Sendable, Equatable {
    /// Answer with the credential given (for server trust: accept the chain it carries).
    case useCredential
    /// Do what the session would do without a delegate (for server trust: its evaluators,
    /// ``SessionConfiguration/serverTrustEvaluator`` or the default rules).
    case performDefaultHandling
    /// Cancel: the request fails with ``NetworkError/Code/cancelled``.
    case cancelAuthenticationChallenge
    /// Decline this protection space: the next one the server offered is asked about (Basic
    /// after Digest), else the response stands; for server trust, the same as the default
    /// handling.
    case rejectProtectionSpace
}

/// An answer to a challenge: the counterpart of `URLCredential`.
public struct Credential: Sendable {
    /// How long a user/password credential is kept.
    public enum Persistence: Sendable, Hashable {
        /// Used for this request only.
        case none
        /// Kept in memory until the session ends.
        case forSession
        /// Kept on disk (never for an ephemeral session).
        case permanent
    }

    /// The user name, for HTTP authentication.
    public var user: String?
    /// The password, for HTTP authentication.
    public var password: String?
    /// How long the credential is kept.
    public var persistence: Persistence
    /// A client certificate and key.
    public var identity: ClientIdentity?
    /// An accepted server chain.
    public var serverTrust: ServerTrust?

    /// A user name and password.
    public init(user: String, password: String, persistence: Persistence) {
        self.user = user
        self.password = password
        self.persistence = persistence
    }

    /// A client identity.
    public init(identity: ClientIdentity, persistence: Persistence = .forSession) {
        self.identity = identity
        self.persistence = persistence
    }

    /// Acceptance of `trust`, the answer to a ``AuthenticationMethod/serverTrust`` challenge.
    public init(trust: ServerTrust) {
        self.serverTrust = trust
        self.persistence = .none
    }
}
