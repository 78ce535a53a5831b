// Cookies through the task layer against the in-process httpbin server: kept from every
// response (a redirect's too), sent again on each hop for its own URL, never across origins
// they do not belong to, and not at all when the request or the configuration opts out.
import Foundation
import HTTPTypes
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session cookies")
struct SessionCookieTests {
    /// The `cookies` object of httpbin's `/cookies`.
    static func cookies(_ data: Data) throws -> [String: String] {
        try #require(try SessionTest.json(data)["cookies"] as? [String: String])
    }

    @Test func aRedirectsCookiesAreSentOnTheNextHop() async throws {
        try await HTTPBinServer.withServer { server in
            let storage = CookieStorage()
            let session = Session(configuration: SessionTest.configuration { $0.httpCookieStorage = storage })
            defer { session.invalidateAndCancel() }
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/cookies/set?flavour=oat&size=2")))
            #expect(response.statusCode == 200)
            #expect(try Self.cookies(data) == ["flavour": "oat", "size": "2"])
            #expect(storage.cookies.count == 2)
            #expect(storage.cookies.allSatisfy { $0.domain == "127.0.0.1" && $0.isHostOnly })
            // A later request carries them; deleting them works the same way.
            let (later, _) = try await session.data(for: NetworkRequest(url: server.url("/cookies/delete?size")))
            #expect(try Self.cookies(later) == ["flavour": "oat"])
        }
    }

    @Test func aRequestCanOptOut() async throws {
        try await HTTPBinServer.withServer { server in
            let storage = CookieStorage()
            let session = Session(configuration: SessionTest.configuration { $0.httpCookieStorage = storage })
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/cookies/set?a=1"))
            request.httpShouldHandleCookies = false
            let (data, _) = try await session.data(for: request)
            #expect(try Self.cookies(data).isEmpty, "the redirect's cookie was not kept")
            #expect(storage.cookies.isEmpty)
            _ = try await session.data(for: NetworkRequest(url: server.url("/cookies/set?b=2")))
            var quiet = NetworkRequest(url: server.url("/cookies"))
            quiet.httpShouldHandleCookies = false
            let (sent, _) = try await session.data(for: quiet)
            #expect(try Self.cookies(sent).isEmpty, "nothing sent from the storage")
        }
    }

    @Test func theConfigurationCanTurnCookiesOff() async throws {
        try await HTTPBinServer.withServer { server in
            let storage = CookieStorage()
            let session = Session(configuration: SessionTest.configuration {
                $0.httpCookieStorage = storage
                $0.httpShouldSetCookies = false
            })
            defer { session.invalidateAndCancel() }
            let (data, _) = try await session.data(for: NetworkRequest(url: server.url("/cookies/set?a=1")))
            #expect(try Self.cookies(data).isEmpty)
            #expect(storage.cookies.isEmpty)
            let never = Session(configuration: SessionTest.configuration {
                $0.httpCookieStorage = storage
                $0.httpCookieAcceptPolicy = .never
            })
            defer { never.invalidateAndCancel() }
            _ = try await never.data(for: NetworkRequest(url: server.url("/cookies/set?a=1")))
            #expect(storage.cookies.isEmpty)
        }
    }

    @Test func theRequestsOwnCookieFieldGoesFirst() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            _ = try await session.data(for: NetworkRequest(url: server.url("/cookies/set?jar=1")))
            var request = NetworkRequest(url: server.url("/cookies"))
            try request.setValue("own=2", forHTTPHeaderField: "Cookie")
            let (data, _) = try await session.data(for: request)
            #expect(try Self.cookies(data) == ["own": "2", "jar": "1"])
            #expect(server.lastRequest?.values(of: "cookie") == ["own=2; jar=1"])
        }
    }

    @Test func cookiesStayWithTheirHost() async throws {
        try await HTTPBinServer.withServer { other in
            try await HTTPBinServer.withServer { server in
                let session = Session(configuration: SessionTest.configuration())
                defer { session.invalidateAndCancel() }
                _ = try await session.data(for: NetworkRequest(url: server.url("/cookies/set?mine=1")))
                // "localhost" is another host than "127.0.0.1", whatever the port.
                let elsewhere = "http://localhost:\(other.port)/cookies"
                let url = try #require(URL(string: server.url("/redirect-to").absoluteString + "?url=" + elsewhere))
                let (data, _) = try await session.data(for: NetworkRequest(url: url))
                #expect(try Self.cookies(data).isEmpty)
                #expect(server.lastRequest?.values(of: "cookie") == ["mine=1"], "the first hop had it")
            }
        }
    }

    @Test func ephemeralSessionsKeepTheirCookiesToThemselves() async throws {
        let first = SessionConfiguration.ephemeral
        let second = SessionConfiguration.ephemeral
        #expect(first.httpCookieStorage !== second.httpCookieStorage)
        #expect(first.httpCookieStorage !== CookieStorage.shared)
        #expect(first.urlCredentialStorage !== CredentialStorage.shared)
        #expect(SessionConfiguration.default.httpCookieStorage === CookieStorage.shared)
    }
}
