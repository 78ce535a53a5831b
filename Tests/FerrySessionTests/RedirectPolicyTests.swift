// RedirectPolicy, pure: which responses redirect, where to, with which method, body and
// fields, and when a task must fail instead.
import Foundation
import HTTPTypes
import Testing

@testable import FerrySession

@Suite("Redirect policy")
struct RedirectPolicyTests {
    static let base = URL(string: "https://a.example/dir/page?q=1#part")!

    static func request(_ method: HTTPRequest.Method = .get, body: RequestBody? = nil, url: URL = base) -> NetworkRequest {
        var request = NetworkRequest(url: url)
        request.method = method
        request.body = body
        try? request.setValue("secret", forHTTPHeaderField: "Authorization")
        try? request.setValue("a=b", forHTTPHeaderField: "Cookie")
        try? request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        return request
    }

    static func decide(_ status: Int, _ location: String?, _ request: NetworkRequest = request(), followed: Int = 0,
                       configure: (inout SessionConfiguration) -> Void = { _ in }) -> RedirectPolicy.Outcome {
        var configuration = SessionConfiguration()
        configure(&configuration)
        return RedirectPolicy.decide(status: status, location: location, request: request, followed: followed, configuration: configuration)
    }

    static func followed(_ outcome: RedirectPolicy.Outcome) -> NetworkRequest? {
        if case .follow(let next) = outcome { return next }
        return nil
    }

    static func failure(_ outcome: RedirectPolicy.Outcome) -> RedirectFailure? {
        if case .fail(let failure) = outcome { return failure }
        return nil
    }

    @Test("only 301, 302, 303, 307 and 308 with a Location redirect", arguments: [200, 300, 304, 305, 306, 404])
    func notRedirects(status: Int) {
        guard case .deliver = Self.decide(status, "/elsewhere") else { Issue.record("\(status) redirected"); return }
    }

    @Test func aRedirectWithoutLocationIsTheAnswer() {
        guard case .deliver = Self.decide(302, nil) else { Issue.record("followed without a Location"); return }
    }

    @Test func relativeLocationsResolveAgainstTheCurrentURLAndKeepItsFragment() {
        let next = Self.followed(Self.decide(302, "other?x=2"))
        #expect(next?.url.absoluteString == "https://a.example/dir/other?x=2#part")
        #expect(Self.followed(Self.decide(301, "/root"))?.url.absoluteString == "https://a.example/root#part")
        #expect(Self.followed(Self.decide(307, "https://a.example/new#own"))?.url.absoluteString == "https://a.example/new#own",
                "a fragment of its own wins")
    }

    @Test("POST becomes GET without its body on 301, 302 and 303", arguments: [301, 302, 303])
    func postBecomesGet(status: Int) throws {
        let next = try #require(Self.followed(Self.decide(status, "/next", Self.request(.post, body: .bytes([1, 2, 3])))))
        #expect(next.method == .get)
        #expect(next.body == nil)
        #expect(next.headerFields[.contentType] == nil)
    }

    @Test func a303TurnsPutIntoGetButLeavesHead() throws {
        #expect(Self.followed(Self.decide(303, "/next", Self.request(.put, body: .bytes([1]))))?.method == .get)
        #expect(Self.followed(Self.decide(303, "/next", Self.request(.head)))?.method == .head)
        #expect(Self.followed(Self.decide(302, "/next", Self.request(.put, body: .bytes([1]))))?.method == .put,
                "302 changes only POST")
    }

    @Test("307 and 308 keep the method and a body that can be sent again", arguments: [307, 308])
    func methodAndBodyKept(status: Int) throws {
        let next = try #require(Self.followed(Self.decide(status, "/next", Self.request(.post, body: .bytes([1, 2, 3])))))
        #expect(next.method == .post)
        guard case .bytes(let bytes)? = next.body?.storage else { Issue.record("body dropped"); return }
        #expect(bytes == [1, 2, 3])
        #expect(next.headerFields[.contentType] == "text/plain")
    }

    @Test func aStreamBodyIsKeptForTheTaskToReplace() {
        let stream = AsyncThrowingStream<[UInt8], any Error> { $0.finish() }
        let request = Self.request(.post, body: .stream(stream, length: nil))
        #expect(Self.followed(Self.decide(307, "/next", request))?.body?.isStream == true,
                "the task asks its delegate for a new stream, or delivers the 307")
        #expect(Self.followed(Self.decide(303, "/next", request))?.body == nil, "a 303 drops the body anyway")
    }

    @Test func credentialsStayWithTheirOrigin() throws {
        let same = try #require(Self.followed(Self.decide(302, "/next")))
        #expect(same.headerFields[.authorization] == "secret")
        #expect(same.headerFields[.cookie] == "a=b")
        for location in ["https://b.example/next", "http://a.example/next", "https://a.example:8443/next"] {
            let other = try #require(Self.followed(Self.decide(302, location)))
            #expect(other.headerFields[.authorization] == nil, "\(location)")
            #expect(other.headerFields[.cookie] == nil, "\(location)")
        }
    }

    @Test func theLimitCountsFollowedRedirects() {
        #expect(Self.followed(Self.decide(302, "/n", followed: 15)) != nil)
        #expect(Self.failure(Self.decide(302, "/n", followed: 16)) == .tooMany(limit: 16))
        guard case .deliver = Self.decide(302, "/n", configure: { $0.httpMaximumRedirects = 0 }) else {
            Issue.record("a limit of 0 followed"); return
        }
    }

    @Test func onlyHTTPAndHTTPSAreFollowed() {
        #expect(Self.failure(Self.decide(302, "ftp://a.example/file")) == .unsupportedScheme(location: "ftp://a.example/file"))
        #expect(Self.failure(Self.decide(302, "http:///nohost")) == .badLocation(location: "http:///nohost"))
    }

    @Test func anHTTPSToHTTPHopIsFollowedUnlessRefused() {
        #expect(Self.followed(Self.decide(302, "http://a.example/plain"))?.url.scheme == "http")
        #expect(Self.failure(Self.decide(302, "http://a.example/plain") { $0.allowsInsecureRedirects = false })
                == .insecure(location: "http://a.example/plain"))
        let plain = Self.request(url: URL(string: "http://a.example/")!)
        #expect(Self.followed(Self.decide(302, "http://b.example/", plain) { $0.allowsInsecureRedirects = false }) != nil,
                "http to http is no downgrade")
    }
}
