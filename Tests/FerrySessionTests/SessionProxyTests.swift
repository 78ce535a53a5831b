// Sessions through a real (in-process) forward proxy: plain http forwarded in absolute form,
// https through a CONNECT tunnel with the session's trust rules and pinning inside it, the
// proxy's credential up front or through the challenge flow (a ProtectionSpace with isProxy),
// refused tunnels as typed errors with the proxy's status, and the bypass list.
import FerryBase
import Ferry
import Foundation
import FerryTLS
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session through a proxy (end to end)")
struct SessionProxyTests {
    /// Answers proxy challenges with a credential and keeps what it was asked.
    final class ProxyAnswering: SessionDelegate, SessionTaskDelegate {
        let credential: Credential?
        private let seen = Locked<[AuthenticationChallenge]>([])

        init(_ credential: Credential?) { self.credential = credential }

        var challenges: [AuthenticationChallenge] { seen.withLock { $0 } }

        func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge,
                     completionHandler: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void) {
            seen.withLock { $0.append(challenge) }
            guard challenge.protectionSpace.isProxy, let credential else { return completionHandler(.performDefaultHandling, nil) }
            completionHandler(.useCredential, credential)
        }
    }

    static func configuration(_ proxy: ForwardProxy, user: String? = nil, bypass: [String]? = nil,
                              tls: Bool = false) throws -> SessionConfiguration {
        let userInfo = user.map { "\($0)@" } ?? ""
        let url = try #require(URL(string: "http://\(userInfo)\(proxy.authority)"))
        var configuration = tls ? try TLSSessionTest.configuration() : SessionTest.configuration()
        configuration.proxy = .http(url, bypass: bypass)
        return configuration
    }

    /// A request to `origin` through `session`'s proxy fails with the proxy's 407 to CONNECT.
    static func expectRefusedTunnel(to origin: TLSTestServer, through session: Session) async throws {
        do {
            _ = try await session.data(for: NetworkRequest(url: try TLSSessionTest.url(origin)))
            Issue.record("expected the tunnel to fail")
        } catch let error as NetworkError {
            #expect(error.code == .proxyTunnelFailed)
            #expect(error.response?.statusCode == 407)
            #expect(error.reason.contains("CONNECT tunnel failed, response 407"), "\(error.reason)")
        }
    }

    @Test("http goes to the proxy in absolute form; metrics say so; the origin never sees proxy fields")
    func forwardsPlainHTTP() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy(authentication: .basic(user: "ada", password: "s3cret")) { proxy in
                let session = Session(configuration: try Self.configuration(proxy, user: "ada:s3cret"))
                defer { session.invalidateAndCancel() }
                let task = session.dataTask(with: NetworkRequest(url: origin.url("/get?a=1")))
                let (_, response) = try await task.data()
                #expect(response.statusCode == 200)
                #expect(proxy.receivedRequests.map(\.uri) == ["\(origin.baseURLString)/get?a=1"], "one request, credential up front")
                #expect(proxy.lastRequest?.value(of: "proxy-connection") == nil)
                #expect(origin.lastRequest?.value(of: "proxy-authorization") == nil)
                #expect(task.metrics?.transactionMetrics.last?.isProxyConnection == true)
            }
        }
    }

    @Test("https through a tunnel: the session's trust store judges the origin inside it")
    func tunnelsHTTPS() async throws {
        try await TLSTestServer.withServer { origin in
            try await ForwardProxy.withProxy { proxy in
                let session = Session(configuration: try Self.configuration(proxy, tls: true))
                defer { session.invalidateAndCancel() }
                let url = try TLSSessionTest.url(origin, host: "localhost")
                let (_, response) = try await session.data(for: NetworkRequest(url: url))
                let (_, again) = try await session.data(for: NetworkRequest(url: url))
                #expect(response.statusCode == 200 && again.statusCode == 200)
                #expect(proxy.tunnelTargets == ["localhost:\(origin.port)"], "one tunnel, kept alive for the second request")
                #expect(proxy.requestCount == 1, "the proxy saw CONNECT only")
                #expect(origin.requestCount == 2)
            }
        }
    }

    @Test("a pin the origin does not match refuses it inside the tunnel: the origin gets no request byte")
    func pinningInsideTheTunnel() async throws {
        try await TLSTestServer.withServer { origin in
            try await ForwardProxy.withProxy { proxy in
                let configuration = try Self.configuration(proxy, tls: true)
                var pinned = configuration
                pinned.serverTrustEvaluator = SecurityPolicy(pinningMode: .publicKey,
                                                             pinnedCertificates: try TLSSessionTest.certificates("other-leaf.pem"))
                let session = Session(configuration: pinned)
                defer { session.invalidateAndCancel() }
                try await TLSSessionTest.expectRefusal(session, try TLSSessionTest.url(origin), by: origin,
                                                       code: .pinningMismatch, naming: ["pinning"])
                #expect(proxy.tunnelCount == 1)
            }
        }
    }

    @Test("a 407 to CONNECT goes to the task delegate as a proxy challenge; the answer opens a new tunnel")
    func proxyChallengeForATunnel() async throws {
        try await TLSTestServer.withServer { origin in
            try await ForwardProxy.withProxy(authentication: .digest(user: "ada", password: "pw")) { proxy in
                let delegate = ProxyAnswering(Credential(user: "ada", password: "pw", persistence: .forSession))
                let session = Session(configuration: try Self.configuration(proxy, tls: true), delegate: delegate)
                defer { session.invalidateAndCancel() }
                let (_, response) = try await session.data(for: NetworkRequest(url: try TLSSessionTest.url(origin)))
                #expect(response.statusCode == 200)
                let space = try #require(delegate.challenges.first?.protectionSpace)
                #expect(space.isProxy && space.host == "127.0.0.1" && space.port == proxy.port)
                #expect(space.protocol == "https" && space.authenticationMethod == .httpDigest && space.realm == "ferry-proxy")
                #expect(delegate.challenges.count == 1)
                #expect(proxy.connectAttempts.count == 1, "the refused CONNECT reached nothing")
                #expect(origin.requestCount == 1)
            }
        }
    }

    @Test("a forwarding proxy's 407 is answered from the credential storage; the accepted answer then goes up front")
    func proxyChallengeFromStorage() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy(authentication: .basic(user: "ada", password: "pw")) { proxy in
                var configuration = try Self.configuration(proxy)
                let storage = CredentialStorage(fileURL: nil)
                storage.setDefaultCredential(
                    Credential(user: "ada", password: "pw", persistence: .forSession),
                    for: ProtectionSpace(host: "127.0.0.1", port: proxy.port, protocol: "http", realm: "ferry-proxy",
                                         authenticationMethod: .httpBasic, isProxy: true))
                configuration.urlCredentialStorage = storage
                let session = Session(configuration: configuration)
                defer { session.invalidateAndCancel() }
                let (_, response) = try await session.data(for: NetworkRequest(url: origin.url("/get")))
                #expect(response.statusCode == 200)
                #expect(proxy.requestCount == 2, "a 407, then the answer")
                let (_, again) = try await session.data(for: NetworkRequest(url: origin.url("/get?again")))
                #expect(again.statusCode == 200)
                #expect(proxy.requestCount == 3, "the accepted Basic answer goes up front: no second 407")
            }
        }
    }

    @Test("a 407 nobody answers: a forwarded request gets it as its response, a tunnel fails with it")
    func unansweredProxyChallenge() async throws {
        try await TLSTestServer.withServer { tlsOrigin in
            try await HTTPBinServer.withServer { origin in
                try await ForwardProxy.withProxy(authentication: .basic(user: "ada", password: "pw")) { proxy in
                    let session = Session(configuration: try Self.configuration(proxy, tls: true))
                    defer { session.invalidateAndCancel() }
                    let (_, forwarded) = try await session.data(for: NetworkRequest(url: origin.url("/get")))
                    #expect(forwarded.statusCode == 407)
                    try await Self.expectRefusedTunnel(to: tlsOrigin, through: session)
                    #expect(tlsOrigin.requestCount == 0 && origin.requestCount == 0)
                }
            }
        }
    }

    @Test("the proxy URL's credential, refused up front, is not sent again: one request, one CONNECT, as curl")
    func aRefusedUpFrontProxyCredentialIsNotRepeated() async throws {
        try await TLSTestServer.withServer { tlsOrigin in
            try await HTTPBinServer.withServer { origin in
                try await ForwardProxy.withProxy(authentication: .basic(user: "ada", password: "right")) { proxy in
                    let session = Session(configuration: try Self.configuration(proxy, user: "ada:wrong", tls: true))
                    defer { session.invalidateAndCancel() }
                    let post = NetworkRequest(url: origin.url("/post"), method: .post, body: .bytes(Array("payload=1".utf8)))
                    let (_, forwarded) = try await session.data(for: post)
                    #expect(forwarded.statusCode == 407)
                    #expect(proxy.requestCount == 1, "the body went once")
                    try await Self.expectRefusedTunnel(to: tlsOrigin, through: session)
                    #expect(proxy.requestCount == 2, "one CONNECT")
                    #expect(tlsOrigin.requestCount == 0 && origin.requestCount == 0)
                }
            }
        }
    }

    @Test("a delegate learns that the proxy URL's credential failed, and its own answer goes")
    func aDelegateSeesTheUpFrontProxyCredentialFail() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy(authentication: .basic(user: "ada", password: "right")) { proxy in
                let delegate = ProxyAnswering(Credential(user: "ada", password: "right", persistence: .none))
                let session = Session(configuration: try Self.configuration(proxy, user: "ada:wrong"), delegate: delegate)
                defer { session.invalidateAndCancel() }
                let (_, response) = try await session.data(for: NetworkRequest(url: origin.url("/get")))
                #expect(response.statusCode == 200)
                let challenge = try #require(delegate.challenges.first)
                #expect(challenge.previousFailureCount == 1)
                #expect(challenge.proposedCredential?.password == "wrong")
                #expect(delegate.challenges.count == 1 && proxy.requestCount == 2)
            }
        }
    }

    @Test("a Basic credential sent up front to a proxy that wants Digest answers its challenge")
    func anUpFrontBasicCredentialAnswersADigestProxy() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy(authentication: .digest(user: "ada", password: "pw")) { proxy in
                let session = Session(configuration: try Self.configuration(proxy, user: "ada:pw"))
                defer { session.invalidateAndCancel() }
                let (_, response) = try await session.data(for: NetworkRequest(url: origin.url("/get")))
                #expect(response.statusCode == 200)
                #expect(proxy.requestCount == 2, "Basic up front, then the Digest answer")
            }
        }
    }

    @Test("a proxy that refuses CONNECT fails the task with its status; nothing reaches the origin")
    func refusedTunnel() async throws {
        try await TLSTestServer.withServer { origin in
            try await ForwardProxy.withProxy(connectRefusal: .init(status: 403)) { proxy in
                let session = Session(configuration: try Self.configuration(proxy, tls: true))
                defer { session.invalidateAndCancel() }
                do {
                    _ = try await session.data(for: NetworkRequest(url: try TLSSessionTest.url(origin)))
                    Issue.record("expected a refusal")
                } catch let error as NetworkError {
                    #expect(error.code == .proxyTunnelFailed && error.response?.statusCode == 403)
                    #expect(error.reason.contains("127.0.0.1 port \(proxy.port)"))
                }
                #expect(origin.connections.isEmpty && proxy.connectAttempts.isEmpty)
            }
        }
    }

    @Test("a host on the bypass list is reached directly")
    func bypassGoesDirect() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy { proxy in
                let session = Session(configuration: try Self.configuration(proxy, bypass: ["127.0.0.0/8"]))
                defer { session.invalidateAndCancel() }
                let task = session.dataTask(with: NetworkRequest(url: origin.url("/get")))
                _ = try await task.data()
                #expect(proxy.connectionCount == 0 && origin.requestCount == 1)
                #expect(task.metrics?.transactionMetrics.last?.isProxyConnection == false)
            }
        }
    }
}
