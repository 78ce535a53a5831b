// The session delegate's server-trust challenge, end to end against TLSTestServer: accept,
// defer to the session's rules, cancel, and the async form. A refused chain leaves the server
// without one application byte.
import FerryBase
import Foundation
import FerryTLS
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session server-trust challenge (end to end)")
struct SessionChallengeTests {
    /// Answers every challenge with a fixed disposition (accepting with the chain it was shown)
    /// and keeps the challenges it saw.
    final class Answering: SessionDelegate {
        let disposition: AuthChallengeDisposition
        private let seen = Locked<[AuthenticationChallenge]>([])

        init(_ disposition: AuthChallengeDisposition) { self.disposition = disposition }

        var challenges: [AuthenticationChallenge] { seen.withLock { $0 } }

        func session(_ session: Session, didReceive challenge: AuthenticationChallenge,
                     completionHandler: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void) {
            seen.withLock { $0.append(challenge) }
            let credential = challenge.protectionSpace.serverTrust.map(Credential.init(trust:))
            completionHandler(disposition, disposition == .useCredential ? credential : nil)
        }
    }

    /// Accepts in the async form only.
    final class AsyncAccepting: SessionDelegate {
        func session(_ session: Session, didReceive challenge: AuthenticationChallenge) async -> (AuthChallengeDisposition, Credential?) {
            (.useCredential, challenge.protectionSpace.serverTrust.map(Credential.init(trust:)))
        }
    }

    @Test func acceptingAChainTheDefaultRulesRefuse() async throws {
        try await TLSTestServer.withServer { server in
            let delegate = Answering(.useCredential)
            // The system store does not know the private root: only the delegate's word lets it in.
            let session = Session(configuration: try TLSSessionTest.configuration(trustingRoot: false), delegate: delegate)
            defer { session.invalidateAndCancel() }
            let (_, response) = try await session.data(for: NetworkRequest(url: try TLSSessionTest.url(server)))
            #expect(response.statusCode == 200)
            let challenge = try #require(delegate.challenges.first)
            #expect(delegate.challenges.count == 1)
            #expect(challenge.protectionSpace.authenticationMethod == .serverTrust)
            #expect(challenge.protectionSpace.host == "localhost")
            #expect(challenge.protectionSpace.port == server.port)
            #expect(challenge.protectionSpace.protocol == "https")
            #expect(challenge.protectionSpace.serverTrust?.certificates.first == (try TLSSessionTest.certificates("leaf.pem")).first)
        }
    }

    @Test func theDefaultHandlingAppliesTheSessionsRules() async throws {
        try await TLSTestServer.withServer { server in
            let session = Session(configuration: try TLSSessionTest.configuration(), delegate: Answering(.performDefaultHandling))
            defer { session.invalidateAndCancel() }
            let (_, response) = try await session.data(for: NetworkRequest(url: try TLSSessionTest.url(server)))
            #expect(response.statusCode == 200)
        }
    }

    @Test(.enabled(if: !TLSSessionTest.systemStoreHoldsPrivateRoot, "the system store trusts the private root here"))
    func theDefaultHandlingStillRefusesAnUnknownRoot() async throws {
        try await TLSTestServer.withServer { server in
            let session = Session(configuration: try TLSSessionTest.configuration(trustingRoot: false),
                                  delegate: Answering(.rejectProtectionSpace))
            defer { session.invalidateAndCancel() }
            try await TLSSessionTest.expectRefusal(session, try TLSSessionTest.url(server), by: server,
                                                   code: .serverCertificateHasUnknownRoot, naming: ["not trusted"])
        }
    }

    @Test func cancellingTheChallengeFailsAsCancelledAndSendsNothing() async throws {
        try await TLSTestServer.withServer { server in
            let session = Session(configuration: try TLSSessionTest.configuration(), delegate: Answering(.cancelAuthenticationChallenge))
            defer { session.invalidateAndCancel() }
            try await TLSSessionTest.expectRefusal(session, try TLSSessionTest.url(server), by: server,
                                                   code: .cancelled, naming: ["cancelled"])
        }
    }

    @Test func theAsyncFormIsAskedWhenTheHandlerFormIsNotImplemented() async throws {
        try await TLSTestServer.withServer { server in
            let session = Session(configuration: try TLSSessionTest.configuration(trustingRoot: false), delegate: AsyncAccepting())
            defer { session.invalidateAndCancel() }
            let (_, response) = try await session.data(for: NetworkRequest(url: try TLSSessionTest.url(server)))
            #expect(response.statusCode == 200)
        }
    }
}

/// The session delegate's client-certificate challenge, against a server that requires one:
/// the identity is chosen per host and port, the server receives it; no answer sends none.
@Suite("Session client-certificate challenge (end to end)")
struct SessionClientCertificateChallengeTests {
    /// Answers the client-certificate challenge with `identity` (or defers, or cancels), and
    /// lets every server-trust challenge take the default rules.
    final class IdentityPicker: SessionDelegate {
        let identity: ClientIdentity?
        let disposition: AuthChallengeDisposition
        private let seen = Locked<[ProtectionSpace]>([])

        init(_ identity: ClientIdentity?, disposition: AuthChallengeDisposition = .useCredential) {
            self.identity = identity
            self.disposition = disposition
        }

        var clientCertificateSpaces: [ProtectionSpace] { seen.withLock { $0 } }

        func session(_ session: Session, didReceive challenge: AuthenticationChallenge,
                     completionHandler: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void) {
            guard challenge.protectionSpace.authenticationMethod == .clientCertificate else {
                return completionHandler(.performDefaultHandling, nil)
            }
            seen.withLock { $0.append(challenge.protectionSpace) }
            completionHandler(disposition, identity.map { Credential(identity: $0) })
        }
    }

    @Test("the delegate's identity reaches the server", arguments: [TLSServerConfiguration.Version.tls13, .tls12])
    func delegatePicksTheIdentity(version: TLSServerConfiguration.Version) async throws {
        let server = TLSServerConfiguration(versions: version ... version, clientAuthentication: .required)
        try await TLSTestServer.withServer(server) { server in
            let identity = try SessionClientCertificateTests.IdentityFile.pem.load()
            let delegate = IdentityPicker(identity)
            let session = Session(configuration: try TLSSessionTest.configuration(), delegate: delegate)
            defer { session.invalidateAndCancel() }
            let (_, response) = try await session.data(for: NetworkRequest(url: try TLSSessionTest.url(server)))
            #expect(response.statusCode == 200)
            let space = try #require(delegate.clientCertificateSpaces.first)
            #expect(delegate.clientCertificateSpaces.count == 1)
            #expect(space.host == "localhost")
            #expect(space.port == server.port)
            #expect(space.protocol == "https")
            let connection = try #require(server.connections.first)
            #expect(connection.clientCertificateDER == identity.certificate.derRepresentation)
        }
    }

    @Test("deferring sends no certificate: a server that requires one refuses")
    func deferringSendsNone() async throws {
        let server = TLSServerConfiguration(versions: .tls13 ... .tls13, clientAuthentication: .required)
        try await TLSTestServer.withServer(server) { server in
            let delegate = IdentityPicker(nil, disposition: .performDefaultHandling)
            let session = Session(configuration: try TLSSessionTest.configuration(), delegate: delegate)
            defer { session.invalidateAndCancel() }
            let error = await networkError { try await session.data(for: NetworkRequest(url: try TLSSessionTest.url(server))) }
            #expect(error?.code == .clientCertificateRequired)
            #expect(delegate.clientCertificateSpaces.count == 1)
            #expect(server.requestCount == 0)
        }
    }

    @Test("cancelling gives the connection up")
    func cancellingGivesUp() async throws {
        let server = TLSServerConfiguration(versions: .tls12 ... .tls12, clientAuthentication: .required)
        try await TLSTestServer.withServer(server) { server in
            let delegate = IdentityPicker(nil, disposition: .cancelAuthenticationChallenge)
            let session = Session(configuration: try TLSSessionTest.configuration(), delegate: delegate)
            defer { session.invalidateAndCancel() }
            let error = await networkError { try await session.data(for: NetworkRequest(url: try TLSSessionTest.url(server))) }
            #expect(error?.code == .cancelled)
            #expect(server.requestCount == 0)
            #expect(server.applicationBytesReceived == 0)
        }
    }
}
