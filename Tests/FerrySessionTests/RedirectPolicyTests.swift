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

    /// One row of the redirect table: what goes in, and the next request that must come out.
    struct Row: Sendable, CustomStringConvertible {
        enum Body: String, Sendable { case none, bytes, file, stream }
        var status: Int
        var method: HTTPRequest.Method
        var body: Body
        var crossOrigin: Bool
        /// The next request's method and body kind, and whether credentials go along.
        var nextMethod: HTTPRequest.Method
        var nextBody: Body
        var keepsCredentials: Bool

        var description: String { "\(status) \(method) \(body) \(crossOrigin ? "cross-origin" : "same origin")" }
    }

    static let table: [Row] = [
        // 301 and 302: POST becomes GET without its body; other methods and bodies stay.
        Row(status: 301, method: .post, body: .bytes, crossOrigin: false, nextMethod: .get, nextBody: .none, keepsCredentials: true),
        Row(status: 301, method: .put, body: .file, crossOrigin: false, nextMethod: .put, nextBody: .file, keepsCredentials: true),
        Row(status: 301, method: .get, body: .none, crossOrigin: true, nextMethod: .get, nextBody: .none, keepsCredentials: false),
        Row(status: 302, method: .post, body: .stream, crossOrigin: true, nextMethod: .get, nextBody: .none, keepsCredentials: false),
        Row(status: 302, method: .delete, body: .none, crossOrigin: false, nextMethod: .delete, nextBody: .none, keepsCredentials: true),
        Row(status: 302, method: .head, body: .none, crossOrigin: true, nextMethod: .head, nextBody: .none, keepsCredentials: false),
        // 303: anything but HEAD becomes GET, and the body goes.
        Row(status: 303, method: .post, body: .file, crossOrigin: false, nextMethod: .get, nextBody: .none, keepsCredentials: true),
        Row(status: 303, method: .put, body: .stream, crossOrigin: true, nextMethod: .get, nextBody: .none, keepsCredentials: false),
        Row(status: 303, method: .head, body: .none, crossOrigin: false, nextMethod: .head, nextBody: .none, keepsCredentials: true),
        Row(status: 303, method: .get, body: .none, crossOrigin: true, nextMethod: .get, nextBody: .none, keepsCredentials: false),
        // 307 and 308: method and body stay (a stream is kept for the task to replace).
        Row(status: 307, method: .post, body: .bytes, crossOrigin: true, nextMethod: .post, nextBody: .bytes, keepsCredentials: false),
        Row(status: 307, method: .put, body: .stream, crossOrigin: false, nextMethod: .put, nextBody: .stream, keepsCredentials: true),
        Row(status: 308, method: .post, body: .file, crossOrigin: false, nextMethod: .post, nextBody: .file, keepsCredentials: true),
        Row(status: 308, method: .patch, body: .stream, crossOrigin: true, nextMethod: .patch, nextBody: .stream, keepsCredentials: false),
        Row(status: 308, method: .get, body: .none, crossOrigin: false, nextMethod: .get, nextBody: .none, keepsCredentials: true),
    ]

    @Test("status × method × body × origin → the next request", arguments: table)
    func redirectTable(row: Row) throws {
        let body: RequestBody?
        switch row.body {
        case .none: body = nil
        case .bytes: body = .bytes([1, 2, 3])
        case .file: body = .file(URL(fileURLWithPath: "/tmp/body"))
        case .stream: body = .stream(AsyncThrowingStream<[UInt8], any Error> { $0.finish() }, length: nil)
        }
        var request = Self.request(row.method, body: body)
        request.credential = Credential(user: "u", password: "p", persistence: .none)
        let location = row.crossOrigin ? "https://b.example/next" : "/next"
        let next = try #require(Self.followed(Self.decide(row.status, location, request)))
        #expect(next.method == row.nextMethod)
        let nextBody: Row.Body
        switch next.body?.storage {
        case nil: nextBody = .none
        case .bytes?: nextBody = .bytes
        case .file?: nextBody = .file
        case .stream?, .segments?: nextBody = .stream
        }
        #expect(nextBody == row.nextBody)
        if row.body != .none && row.nextBody == .none {
            #expect(next.headerFields[.contentType] == nil, "a dropped body takes its Content-Type along")
        }
        #expect((next.headerFields[.authorization] != nil) == row.keepsCredentials)
        #expect((next.headerFields[.cookie] != nil) == row.keepsCredentials)
        #expect((next.credential != nil) == row.keepsCredentials)
        #expect(next.url.host == (row.crossOrigin ? "b.example" : "a.example"))
    }

    @Test func aRedirectWithoutLocationIsTheAnswer() {
        guard case .deliver = Self.decide(302, nil) else { Issue.record("followed without a Location"); return }
        // An empty Location names this very page: following it would only ask again (curl
        // does not follow it either).
        guard case .deliver = Self.decide(302, "") else { Issue.record("followed an empty Location"); return }
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

    @Test("a Location's user information for another origin is dropped, as curl drops it; the same origin keeps it")
    func userInformationInALocationStaysWithItsOrigin() throws {
        let other = try #require(Self.followed(Self.decide(302, "http://user:pass@b.example:8080/next?x=1#f")))
        #expect(other.url.absoluteString == "http://b.example:8080/next?x=1#f")
        #expect(SessionTask.userInformation(of: other.url) == nil)
        let typed = Self.request(url: URL(string: "https://ada:pw@a.example/dir/page")!)
        let same = try #require(Self.followed(Self.decide(302, "/next", typed)))
        #expect(same.url.absoluteString == "https://ada:pw@a.example/next", "the URL the user typed keeps answering its origin")
        let trusted = Self.followed(Self.decide(302, "http://user:pass@b.example/next") { $0.redirectsKeepCredentials = true })
        #expect(trusted?.url.user() == "user", "kept when credentials may cross origins (curl --location-trusted)")
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
