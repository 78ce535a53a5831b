// HTTP authentication through the task layer against the in-process httpbin server: Basic
// and Digest answered from the request's credential, the URL's user information, the
// credential storage or the delegate; no loops on a refused credential; preemptive Basic.
import FerryBase
import Dispatch
import Foundation
import HTTPTypes
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

/// A task delegate that answers challenges from a list, recording what it was asked.
final class ChallengeAnsweringDelegate: SessionTaskDelegate {
    private let state: Locked<(answers: [(AuthChallengeDisposition, Credential?)], asked: [AuthenticationChallenge])>

    init(_ answers: [(AuthChallengeDisposition, Credential?)]) {
        state = Locked((answers, []))
    }

    var asked: [AuthenticationChallenge] { state.withLock { $0.asked } }

    func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void) {
        let answer = state.withLock { state -> (AuthChallengeDisposition, Credential?) in
            state.asked.append(challenge)
            return state.answers.isEmpty ? (.performDefaultHandling, nil) : state.answers.removeFirst()
        }
        // Answered later, from another thread, as a user interface would.
        DispatchQueue.global().async { completionHandler(answer.0, answer.1) }
    }
}

@Suite("Session authentication")
struct SessionAuthenticationTests {
    static let right = Credential(user: "user", password: "pass", persistence: .none)
    static let wrong = Credential(user: "user", password: "nope", persistence: .none)

    static func request(_ url: URL, credential: Credential? = nil) -> NetworkRequest {
        var request = NetworkRequest(url: url)
        request.credential = credential
        return request
    }

    @Test func basicIsAnsweredWithTheRequestsCredential() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: session.delegateQueue)
            let (data, response) = try await session.data(
                for: Self.request(server.url("/basic-auth/user/pass"), credential: Self.right), delegate: delegate)
            #expect(response.statusCode == 200)
            #expect(try SessionTest.json(data)["authenticated"] as? Bool == true)
            #expect(delegate.metrics?.transactionMetrics.count == 2, "the 401, then the answer")
            #expect(delegate.metrics?.redirectCount == 0)
            let heads = server.receivedRequests
            #expect(heads.count == 2)
            #expect(heads.first?.values(of: "authorization").isEmpty == true, "nothing sent before the server asks")
            #expect(heads.last?.values(of: "authorization") == ["Basic dXNlcjpwYXNz"])
            #expect(server.connectionCount == 1, "the 401's body was read: the connection stayed")
        }
    }

    @Test func theURLsUserInformationAnswersAndIsNeverSentAsIs() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            var components = try #require(URLComponents(url: server.url("/basic-auth/us-er/p:ss"), resolvingAgainstBaseURL: false))
            components.user = "us-er"
            components.password = "p:ss"
            let url = try #require(components.url)
            let (_, response) = try await session.data(for: NetworkRequest(url: url))
            #expect(response.statusCode == 200)
            let heads = server.receivedRequests
            #expect(heads.count == 2, "answered when asked, as URLSession does")
            #expect(heads.last?.values(of: "authorization") == ["Basic " + Data("us-er:p:ss".utf8).base64EncodedString()])
            #expect(heads.allSatisfy { !$0.uri.contains("@") && !$0.values(of: "host").joined().contains("@") },
                    "user information never goes on the wire as such")
        }
    }

    @Test func aRefusedCredentialIsNotSentAgain() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let (_, response) = try await session.data(for: Self.request(server.url("/basic-auth/user/pass"), credential: Self.wrong))
            #expect(response.statusCode == 401, "the second 401 is the answer")
            #expect(server.requestCount == 2)
        }
    }

    @Test func withoutACredentialThe401IsTheResponse() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/basic-auth/user/pass")))
            #expect(response.statusCode == 401)
            #expect(response.value(forHTTPHeaderField: "WWW-Authenticate") == "Basic realm=\"Fake Realm\"")
            #expect(server.requestCount == 1)
        }
    }

    @Test func theDelegateIsAskedAgainWithTheFailureCount() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = ChallengeAnsweringDelegate([(.useCredential, Self.wrong), (.useCredential, Self.right)])
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/basic-auth/user/pass")), delegate: delegate)
            #expect(response.statusCode == 200)
            let asked = delegate.asked
            #expect(asked.map(\.previousFailureCount) == [0, 1])
            #expect(asked.first?.protectionSpace.realm == "Fake Realm")
            #expect(asked.first?.protectionSpace.authenticationMethod == .httpBasic)
            #expect(asked.first?.protectionSpace.port == server.port)
            #expect(asked.first?.failureResponse?.statusCode == 401)
            #expect(asked.last?.proposedCredential?.password == "nope", "the last credential tried is proposed")
            #expect(server.requestCount == 3)
        }
    }

    @Test func theDelegateGivingTheSameRefusedCredentialGetsThe401() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = ChallengeAnsweringDelegate(Array(repeating: (.useCredential, Self.wrong), count: 5))
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/basic-auth/user/pass")), delegate: delegate)
            #expect(response.statusCode == 401)
            #expect(server.requestCount == 2)
        }
    }

    @Test func rejectingTheSpaceDeliversThe401AndCancellingCancels() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/basic-auth/user/pass")
            let rejecting = ChallengeAnsweringDelegate([(.rejectProtectionSpace, nil)])
            let (_, response) = try await session.data(for: Self.request(url, credential: Self.right), delegate: rejecting)
            #expect(response.statusCode == 401)
            let cancelling = ChallengeAnsweringDelegate([(.cancelAuthenticationChallenge, nil)])
            let error = await networkError { try await session.data(for: NetworkRequest(url: url), delegate: cancelling) }
            #expect(error?.code == .cancelled)
        }
    }

    @Test func aWorkingCredentialIsKeptAndThenSentBeforeTheServerAsks() async throws {
        try await HTTPBinServer.withServer { server in
            let storage = CredentialStorage(fileURL: nil)
            let session = Session(configuration: SessionTest.configuration { $0.urlCredentialStorage = storage })
            defer { session.invalidateAndCancel() }
            let kept = Credential(user: "user", password: "pass", persistence: .forSession)
            _ = try await session.data(for: Self.request(server.url("/basic-auth/user/pass"), credential: kept))
            await Self.drain(session)
            let space = ProtectionSpace(host: "127.0.0.1", port: server.port, protocol: "http", realm: "Fake Realm",
                                        authenticationMethod: .httpBasic)
            #expect(storage.defaultCredential(for: space)?.user == "user")
            server.resetCounters()
            // Same origin, same directory: Basic goes with the first request.
            let delegate = RecordingDelegate(queue: session.delegateQueue)
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/basic-auth/user/pass")), delegate: delegate)
            #expect(response.statusCode == 200)
            #expect(server.requestCount == 1)
            #expect(delegate.metrics?.transactionMetrics.count == 1)
            // Elsewhere on the server, nothing is sent unasked.
            _ = try await session.data(for: NetworkRequest(url: server.url("/headers")))
            #expect(server.lastRequest?.values(of: "authorization").isEmpty == true)
        }
    }

    /// The storage is written off the loop, on the delegate queue: wait for it.
    static func drain(_ session: Session) async {
        await withCheckedContinuation { done in session.delegateQueue.async { done.resume() } }
    }

    @Test func anAnswerSentUpFrontIsForOneCredentialOnly() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/basic-auth/alice/pw")
            let alice = Credential(user: "alice", password: "pw", persistence: .forSession)
            _ = try await session.data(for: Self.request(url, credential: alice))
            server.resetCounters()
            // Bob's request to the same place must not go out as Alice.
            let bob = Credential(user: "bob", password: "b", persistence: .forSession)
            let (_, response) = try await session.data(for: Self.request(url, credential: bob))
            #expect(response.statusCode == 401)
            #expect(server.receivedRequests.first?.values(of: "authorization").isEmpty == true)
            // A credential only for this request (.none) is not remembered either.
            let quiet = Session(configuration: SessionTest.configuration())
            defer { quiet.invalidateAndCancel() }
            _ = try await quiet.data(for: Self.request(url, credential: Credential(user: "alice", password: "pw", persistence: .none)))
            server.resetCounters()
            let (_, unasked) = try await quiet.data(for: NetworkRequest(url: url))
            #expect(unasked.statusCode == 401)
            #expect(server.receivedRequests.first?.values(of: "authorization").isEmpty == true)
        }
    }

    @Test func anAnswerSentUpFrontThatIsRefusedIsForgottenAndNotSentAgain() async throws {
        try await HTTPBinServer.withServer { server in
            let storage = CredentialStorage(fileURL: nil)
            let session = Session(configuration: SessionTest.configuration { $0.urlCredentialStorage = storage })
            defer { session.invalidateAndCancel() }
            let old = Credential(user: "alice", password: "pw", persistence: .forSession)
            _ = try await session.data(for: Self.request(server.url("/basic-auth/alice/pw"), credential: old))
            await Self.drain(session)
            server.resetCounters()
            // Same directory, another password now: the old answer goes up front, is refused,
            // and the same credential (the storage's default) is not sent a second time.
            let (_, refused) = try await session.data(for: NetworkRequest(url: server.url("/basic-auth/alice/new")))
            #expect(refused.statusCode == 401)
            #expect(server.requestCount == 1)
            server.resetCounters()
            // Forgotten: the next request waits for the challenge, then the storage answers.
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/basic-auth/alice/pw")))
            #expect(response.statusCode == 200)
            #expect(server.requestCount == 2)
        }
    }

    @Test func aPermanentCredentialThatWorkedIsWrittenPrivately() async throws {
        try await HTTPBinServer.withServer { server in
            let directory = try TemporaryDirectory()
            let file = directory.url.appendingPathComponent("ferry/credentials.json")
            let storage = CredentialStorage(fileURL: file)
            let session = Session(configuration: SessionTest.configuration { $0.urlCredentialStorage = storage })
            defer { session.invalidateAndCancel() }
            let wrong = Credential(user: "user", password: "nope", persistence: .permanent)
            _ = try await session.data(for: Self.request(server.url("/basic-auth/user/pass"), credential: wrong))
            await Self.drain(session)
            #expect(!FileManager.default.fileExists(atPath: file.path), "a refused credential is not kept")
            let right = Credential(user: "user", password: "pass", persistence: .permanent)
            _ = try await session.data(for: Self.request(server.url("/basic-auth/user/pass"), credential: right))
            await Self.drain(session)
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let reread = try CredentialStorage(contentsOf: file)
            let space = ProtectionSpace(host: "127.0.0.1", port: server.port, protocol: "http", realm: "Fake Realm",
                                        authenticationMethod: .httpBasic)
            #expect(reread.defaultCredential(for: space)?.password == "pass")
        }
    }

    @Test func theStoragesDefaultCredentialAnswers() async throws {
        try await HTTPBinServer.withServer { server in
            let storage = CredentialStorage(fileURL: nil)
            let space = ProtectionSpace(host: "127.0.0.1", port: server.port, protocol: "http", realm: "Fake Realm",
                                        authenticationMethod: .httpBasic)
            storage.setDefaultCredential(Credential(user: "user", password: "pass", persistence: .forSession), for: space)
            let session = Session(configuration: SessionTest.configuration { $0.urlCredentialStorage = storage })
            defer { session.invalidateAndCancel() }
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/basic-auth/user/pass")))
            #expect(response.statusCode == 200)
        }
    }

    @Test("Digest is answered", arguments: ["MD5", "MD5-sess", "SHA-256", "SHA-256-sess"])
    func digestIsAnswered(algorithm: String) async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/digest-auth/auth/user/pass/\(algorithm)?x=1")
            let (_, response) = try await session.data(for: Self.request(url, credential: Self.right))
            #expect(response.statusCode == 200)
            #expect(server.requestCount == 2)
            let answer = server.lastRequest?.values(of: "authorization").first ?? ""
            #expect(answer.hasPrefix("Digest "))
            #expect(answer.contains("algorithm=\(algorithm)"))
            #expect(answer.contains("nc=00000001"))
        }
    }

    @Test func aStaleNonceIsRetriedWithTheSameCredential() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = ChallengeAnsweringDelegate([])
            let url = server.url("/digest-auth/auth/user/pass/SHA-256/stale")
            let (_, response) = try await session.data(for: Self.request(url, credential: Self.right), delegate: delegate)
            #expect(response.statusCode == 200)
            #expect(server.requestCount == 3, "401, stale 401, 200")
            #expect(delegate.asked.map(\.previousFailureCount) == [0, 0], "a stale nonce is no failure")
        }
    }

    @Test func onlyTheAllowedSchemesAreAnswered() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.httpAuthenticationMethods = [.httpBasic] })
            defer { session.invalidateAndCancel() }
            let (_, response) = try await session.data(
                for: Self.request(server.url("/digest-auth/auth/user/pass/MD5"), credential: Self.right))
            #expect(response.statusCode == 401)
            #expect(server.requestCount == 1)
        }
    }

    @Test func aStreamedBodyIsSentAgainOnlyWithANewStream() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            var request = Self.request(server.url("/basic-auth/user/pass"), credential: Self.right)
            request.method = .post
            request.body = .stream(SessionTest.stream([Array("abc".utf8)]), length: 3)
            let (_, response) = try await session.data(for: request)
            #expect(response.statusCode == 401)
            #expect(server.requestCount == 1)
            // A delegate that gives the body again lets the answer go.
            let giving = NewBodyDelegate(body: .stream(SessionTest.stream([Array("abc".utf8)]), length: 3))
            request.body = .stream(SessionTest.stream([Array("abc".utf8)]), length: 3)
            let (_, answered) = try await session.data(for: request, delegate: giving)
            #expect(answered.statusCode == 200)
            #expect(giving.asked == 1)
        }
    }

    @Test func theRequestsCredentialStaysWithItsOrigin() async throws {
        try await HTTPBinServer.withServer { target in
            try await HTTPBinServer.withServer { origin in
                let session = Session(configuration: SessionTest.configuration())
                defer { session.invalidateAndCancel() }
                let elsewhere = target.url("/basic-auth/user/pass").absoluteString
                var request = Self.request(origin.url("/redirect-to"), credential: Self.right)
                request.url = try #require(URL(string: origin.url("/redirect-to").absoluteString + "?url=" + elsewhere))
                try request.setBasicAuthorization(user: "user", password: "pass")
                let (_, response) = try await session.data(for: request)
                #expect(response.statusCode == 401, "neither the credential nor its Authorization crossed origins")
                #expect(target.requestCount == 1)
                #expect(target.lastRequest?.values(of: "authorization").isEmpty == true)
                #expect(origin.lastRequest?.values(of: "authorization") == ["Basic dXNlcjpwYXNz"])
            }
        }
    }

    @Test func aCredentialThatCannotBeSentFailsClearly() async throws {
        var request = NetworkRequest(url: URL(string: "http://127.0.0.1/")!)
        #expect(throws: NetworkError.self) { try request.setBasicAuthorization(user: "a:b", password: "c") }
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let broken = Credential(user: "us:er", password: "pass", persistence: .none)
            let error = await networkError { try await session.data(for: Self.request(server.url("/basic-auth/user/pass"), credential: broken)) }
            #expect(error?.code == .userAuthenticationRequired)
            #expect(error?.reason.contains("user name may not contain ':'") == true, "\(String(describing: error))")
        }
    }
}
