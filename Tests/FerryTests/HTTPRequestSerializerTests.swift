import Foundation
import Testing

@testable import Ferry
@testable import FerrySession

/// AFHTTPRequestSerializer's behaviour: parameters in the query for GET, HEAD and DELETE and in
/// a form body otherwise, default headers that never override the request's own, Basic
/// authorization, the locale's Accept-Language, and a caller's query-string rules.
@Suite("HTTP request serializer")
struct HTTPRequestSerializerTests {
    static let url = URL(string: "https://api.example.com/v1/items?sort=asc#top")!

    @Test("GET, HEAD and DELETE put parameters in the query, after the URL's own", arguments: [
        HTTPRequest.Method.get, .head, .delete,
    ])
    func queryMethods(method: HTTPRequest.Method) throws {
        let request = try HTTPRequestSerializer().request(method: method, url: Self.url, parameters: ["q": "a b", "n": 1])
        #expect(request.url.absoluteString == "https://api.example.com/v1/items?sort=asc&n=1&q=a%20b#top")
        #expect(request.body == nil)
        #expect(request.headerFields[.contentType] == nil)
    }

    @Test("other methods send a form body", arguments: [HTTPRequest.Method.post, .put, .patch])
    func bodyMethods(method: HTTPRequest.Method) throws {
        let request = try HTTPRequestSerializer().request(method: method, url: Self.url, parameters: ["b": ["x": 1], "a": "é"])
        #expect(request.url == Self.url)
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(Self.bodyText(request) == "a=%C3%A9&b%5Bx%5D=1")
    }

    @Test func aContentTypeAlreadySetIsKept() throws {
        var request = NetworkRequest(url: Self.url, method: .post)
        try request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let serialized = try HTTPRequestSerializer().serialize(request, with: ["a": "1"])
        #expect(serialized.headerFields[values: .contentType] == ["text/plain"])
        #expect(Self.bodyText(serialized) == "a=1")
    }

    @Test("without parameters, a body method gets an empty form, as AFNetworking's #2864; a query method nothing")
    func noParametersMeanAnEmptyFormAndNoQuery() throws {
        for method in [HTTPRequest.Method.post, .put, .patch] {
            let request = try HTTPRequestSerializer().request(method: method, url: Self.url)
            #expect(memoryBytes(request.body) == [], "\(method)")
            #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded", "\(method)")
        }
        var typed = NetworkRequest(url: Self.url, method: .post)
        typed.headerFields[.contentType] = "text/plain"
        #expect(try HTTPRequestSerializer().serialize(typed, with: nil).headerFields[.contentType] == "text/plain")
        let withBody = NetworkRequest(url: Self.url, method: .post, body: .bytes([1, 2]))
        let kept = try HTTPRequestSerializer().serialize(withBody, with: nil)
        #expect(memoryBytes(kept.body) == [1, 2], "a body of the caller's stays")
        #expect(kept.headerFields[.contentType] == nil)
        for method in [HTTPRequest.Method.get, .head, .delete] {
            let request = try HTTPRequestSerializer().request(method: method, url: Self.url, parameters: [:])
            #expect(request.url == Self.url, "an empty query adds nothing")
            #expect(request.body == nil)
            #expect(request.headerFields[.contentType] == nil)
        }
        // The body serializers send nothing without parameters (AFJSONRequestSerializer).
        let json = try JSONRequestSerializer().request(method: .post, url: Self.url)
        #expect(json.body == nil)
        #expect(json.headerFields[.contentType] == nil)
        let plist = try PropertyListRequestSerializer().request(method: .post, url: Self.url)
        #expect(plist.body == nil)
        #expect(plist.headerFields[.contentType] == nil)
    }

    @Test func defaultHeadersNeverOverrideTheRequestsOwn() throws {
        var serializer = HTTPRequestSerializer()
        try serializer.setValue("application/json", forHTTPHeaderField: "Accept")
        try serializer.setValue("x", forHTTPHeaderField: "X-Trace")
        try serializer.setValue(nil, forHTTPHeaderField: "X-Trace")
        #expect(serializer.value(forHTTPHeaderField: "accept") == "application/json")
        #expect(serializer.value(forHTTPHeaderField: "X-Trace") == nil)
        var request = NetworkRequest(url: Self.url)
        try request.setValue("text/html", forHTTPHeaderField: "Accept")
        let serialized = try serializer.serialize(request, with: nil)
        #expect(serialized.headerFields[values: .accept] == ["text/html"])
        #expect(serialized.headerFields[.userAgent]?.contains("Ferry/") == true)
        #expect(serialized.headerFields[.acceptLanguage] != nil)
        #expect(throws: NetworkError.self) { try serializer.setValue("a\r\nInjected: 1", forHTTPHeaderField: "X-A") }
        #expect(throws: NetworkError.self) { try serializer.setValue("v", forHTTPHeaderField: "Bad Name") }
    }

    @Test func basicAuthorizationOnEveryRequest() throws {
        var serializer = HTTPRequestSerializer()
        try serializer.setAuthorizationHeaderField(username: "Aladdin", password: "open sesame")
        #expect(try serializer.request(method: .get, url: Self.url).headerFields[.authorization] == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        serializer.clearAuthorizationHeader()
        #expect(try serializer.request(method: .get, url: Self.url).headerFields[.authorization] == nil)
        #expect(throws: NetworkError.self) { try serializer.setAuthorizationHeaderField(username: "a:b", password: "c") }
    }

    @Test func theTimeoutGoesOnRequestsThatHaveNone() throws {
        var serializer = HTTPRequestSerializer()
        serializer.timeoutInterval = .seconds(5)
        #expect(try serializer.request(method: .get, url: Self.url).timeoutInterval == .seconds(5))
        var own = NetworkRequest(url: Self.url)
        own.timeoutInterval = .seconds(1)
        #expect(try serializer.serialize(own, with: nil).timeoutInterval == .seconds(1))
    }

    @Test func aCallersQueryStringRules() throws {
        var serializer = HTTPRequestSerializer()
        serializer.queryStringWriter = { _, parameters in parameters.keys.sorted().joined(separator: "+") }
        #expect(try serializer.request(method: .get, url: URL(string: "http://h/p")!, parameters: ["b": 1, "a": 2]).url.absoluteString
            == "http://h/p?a+b")
        serializer.httpMethodsEncodingParametersInURI = [.get, .post]
        #expect(try serializer.request(method: .post, url: URL(string: "http://h/p")!, parameters: ["x": 1]).url.query == "x")
    }

    @Test("Accept-Language from the locale's environment", arguments: [
        (["LANG": "fr_CA.UTF-8"], "fr-CA;q=1"),
        (["LANGUAGE": "de_AT:de:en", "LANG": "fr_FR.UTF-8"], "de-AT;q=1, de;q=0.9, en;q=0.8"),
        (["LC_ALL": "C", "LANG": "fr_FR"], "en;q=1"),
        (["LANG": "sr_RS@latin"], "sr-RS;q=1"),
        ([:], "en;q=1"),
        (["LANGUAGE": "a:b:c:d:e:f:g:h"], "a;q=1, b;q=0.9, c;q=0.8, d;q=0.7, e;q=0.6, f;q=0.5"),
    ] as [([String: String], String)])
    func acceptLanguage(environment: [String: String], expected: String) {
        #expect(HTTPRequestSerializer.acceptLanguage(environment: environment) == expected)
    }

    @Test func userAgentNamesTheProgramAndFerry() {
        #expect(HTTPRequestSerializer.userAgent(program: "/usr/local/bin/my-app") == "my-app Ferry/0.1 (Linux)")
        #expect(HTTPRequestSerializer.userAgent(program: "") == "Ferry/0.1 (Linux)")
    }

    static func bodyText(_ request: NetworkRequest) -> String? {
        guard case .bytes(let bytes)? = request.body?.storage else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The bytes of a body held in memory, or nil for none or another kind of body.
func memoryBytes(_ body: RequestBody?) -> [UInt8]? {
    guard case .bytes(let bytes) = body?.storage else { return nil }
    return bytes
}
