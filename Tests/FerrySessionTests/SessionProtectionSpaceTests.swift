// A 401 that offers two protection spaces (Digest and Basic): a delegate that rejects the
// first is asked about the next, as URLSession's `.rejectProtectionSpace` does; rejecting
// the last leaves the 401 as the task's response.
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session authentication: rejecting a protection space")
struct SessionProtectionSpaceTests {
    private static let challenge = """
        HTTP/1.1 401 Unauthorized\r
        WWW-Authenticate: Digest realm="vault", nonce="abc123", qop="auth", algorithm=SHA-256\r
        WWW-Authenticate: Basic realm="door"\r
        Content-Length: 0\r
        \r

        """

    private static func authorization(in head: MessageHead?) -> String? {
        head?.fields.first { $0.name.lowercased() == "authorization" }?.value
    }

    @Test func rejectingDigestAsksAboutBasic() async throws {
        let server = try ScriptedServer(scripts: [[
            .readRequest, .send(Self.challenge),
            .readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nin"), .stallUntilClosed(limit: .seconds(30)),
        ]])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let credential = Credential(user: "user", password: "pass", persistence: .none)
        let delegate = ChallengeAnsweringDelegate([(.rejectProtectionSpace, nil), (.useCredential, credential)])
        let url = URL(string: "http://127.0.0.1:\(server.port)/private")!
        let (data, response) = try await session.data(for: NetworkRequest(url: url), delegate: delegate)
        #expect(response.statusCode == 200)
        #expect(data == Data("in".utf8))
        let asked = delegate.asked.map(\.protectionSpace)
        #expect(asked.map(\.authenticationMethod) == [.httpDigest, .httpBasic])
        #expect(asked.map(\.realm) == ["vault", "door"])
        let heads = server.receivedRequestHeads(connection: 0)
        #expect(Self.authorization(in: heads.first) == nil)
        #expect(Self.authorization(in: heads.dropFirst().first) == "Basic dXNlcjpwYXNz", "user:pass, for the Basic space")
    }

    @Test func rejectingEverySpaceDeliversThe401() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .send(Self.challenge), .stallUntilClosed(limit: .seconds(30))]])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let delegate = ChallengeAnsweringDelegate([(.rejectProtectionSpace, nil), (.rejectProtectionSpace, nil)])
        let url = URL(string: "http://127.0.0.1:\(server.port)/private")!
        let (_, response) = try await session.data(for: NetworkRequest(url: url), delegate: delegate)
        #expect(response.statusCode == 401)
        #expect(delegate.asked.count == 2)
        #expect(server.receivedRequestHeads(connection: 0).count == 1, "nothing was sent again")
    }

    @Test func onlyTheAllowedSpacesAreOffered() async throws {
        // A session that answers Digest only has no Basic space to move to.
        let server = try ScriptedServer(scripts: [[.readRequest, .send(Self.challenge), .stallUntilClosed(limit: .seconds(30))]])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration { $0.httpAuthenticationMethods = [.httpDigest] })
        defer { session.invalidateAndCancel() }
        let delegate = ChallengeAnsweringDelegate([(.rejectProtectionSpace, nil)])
        let url = URL(string: "http://127.0.0.1:\(server.port)/private")!
        let (_, response) = try await session.data(for: NetworkRequest(url: url), delegate: delegate)
        #expect(response.statusCode == 401)
        #expect(delegate.asked.map(\.protectionSpace.authenticationMethod) == [.httpDigest])
    }

    @Test func aRefusedBasicAnswerCountsAsItsSpacesFailure() async throws {
        // The Basic answer is refused with the same two spaces: the Digest space never
        // failed, the Basic one did once.
        let server = try ScriptedServer(scripts: [[
            .readRequest, .send(Self.challenge), .readRequest, .send(Self.challenge), .stallUntilClosed(limit: .seconds(30)),
        ]])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let wrong = Credential(user: "user", password: "nope", persistence: .none)
        let delegate = ChallengeAnsweringDelegate([
            (.rejectProtectionSpace, nil), (.useCredential, wrong), (.rejectProtectionSpace, nil), (.rejectProtectionSpace, nil),
        ])
        let url = URL(string: "http://127.0.0.1:\(server.port)/private")!
        let (_, response) = try await session.data(for: NetworkRequest(url: url), delegate: delegate)
        #expect(response.statusCode == 401)
        let asked = delegate.asked
        #expect(asked.map(\.protectionSpace.authenticationMethod) == [.httpDigest, .httpBasic, .httpDigest, .httpBasic])
        #expect(asked.map(\.previousFailureCount) == [0, 0, 0, 1])
        #expect(asked.last?.proposedCredential?.password == "nope", "the refused credential is what was tried")
    }
}
