import Ferry
import Foundation
import Testing
@testable import ferry

/// -d, -G, --json and -H become the method, fields, body and query curl would send.
struct RequestBuilderTests {
    private func builder(_ arguments: String..., files: [String: [UInt8]] = [:]) throws -> RequestBuilder {
        let options = try ArgumentParser().parse(arguments + ["http://h/"])
        return try RequestBuilder(options: options, postData: PostData(pieces: options.data) { files[$0] })
    }

    private func request(_ arguments: String..., url: String = "http://h/p") throws -> NetworkRequest {
        let options = try ArgumentParser().parse(arguments + [url])
        return try RequestBuilder(options: options, postData: PostData(pieces: options.data) { _ in nil })
            .request(for: url)
    }

    @Test func plainGet() throws {
        let request = try request()
        #expect(request.method == .get)
        #expect(request.body == nil)
        #expect(request.headerFields.isEmpty)
    }

    @Test func dataMakesAFormPost() throws {
        let builder = try builder("-d", "a=1", "-d", "b=2")
        #expect(builder.method == .post)
        #expect(builder.body == Array("a=1&b=2".utf8))
        let request = try builder.request(for: "http://h/")
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(request.body?.knownLength == 7)
    }

    @Test func explicitMethodWinsOverData() throws {
        #expect(try builder("-X", "PUT", "-d", "x").method == HTTPRequest.Method("PUT"))
    }

    @Test func jsonSetsBothFieldsAndJoinsWithoutSeparator() throws {
        // Matches curl 7.88: `--json a --json b -d c` sends `ab&c`.
        let builder = try builder("--json", "a", "--json", "b", "-d", "c")
        #expect(builder.body == Array("ab&c".utf8))
        let request = try builder.request(for: "http://h/")
        #expect(request.headerFields[.contentType] == "application/json")
        #expect(request.headerFields[.accept] == "application/json")
        #expect(builder.method == .post)
    }

    @Test func dataFromFiles() throws {
        let files: [String: [UInt8]] = ["f": Array("a=1\r\nb=2\n".utf8)]
        #expect(try builder("-d", "@f", files: files).body == Array("a=1b=2".utf8))
        #expect(try builder("--data-binary", "@f", files: files).body == Array("a=1\r\nb=2\n".utf8))
        #expect(try builder("--data-raw", "@f", files: files).body == Array("@f".utf8))
        #expect(try builder("--json", "@f", files: files).body == Array("a=1\r\nb=2\n".utf8))
    }

    @Test func unreadableFileWarnsAndSendsEmptyAsCurl() {
        let data = PostData(pieces: [.init(kind: .ascii, value: "@missing")]) { _ in nil }
        #expect(data.bytes.isEmpty)
        #expect(data.warnings == ["Warning: Couldn't read data from file \"missing\", this makes an empty POST."])
    }

    @Test("--data-urlencode encodes as curl 7.88 does (outputs taken from it)", arguments: [
        ("hello world", "hello+world"), ("=a=b c", "a%3Db+c"), ("name=a b&c", "name=a+b%26c"), ("=@x", "%40x"),
        ("a@b=c", "a@b=c"), ("", ""), ("n=", "n="), ("~-._*!'()", "~-._%2A%21%27%28%29"), ("é", "%C3%A9"),
        ("@f", "a+b%0A%26c%3Dd%C3%A9%0A"), ("n@f", "n=a+b%0A%26c%3Dd%C3%A9%0A"), ("n@empty", ""),
    ])
    func dataURLEncode(argument: String, sent: String) throws {
        let files: [String: [UInt8]] = ["f": Array("a b\n&c=dé\n".utf8), "empty": []]
        #expect(try builder("--data-urlencode", argument, files: files).body == Array(sent.utf8))
    }

    @Test func dataURLEncodeJoinsWithOtherDataAndGoesIntoTheQueryWithG() throws {
        #expect(try builder("--data-urlencode", "x=1 2", "-d", "y=3", "--data-urlencode", "z").body == Array("x=1+2&y=3&z".utf8))
        #expect(try request("-G", "--data-urlencode", "x=1 2&", url: "http://h/p?q=1").url.absoluteString == "http://h/p?q=1&x=1+2%26")
        let unreadable = PostData(pieces: [.init(kind: .urlencode, value: "n@missing")]) { _ in nil }
        #expect(unreadable.bytes.isEmpty)
        #expect(unreadable.warnings == ["Warning: Couldn't read data from file \"n@missing\", this makes an empty POST."])
    }

    @Test func getMovesDataToTheQuery() throws {
        let request = try request("-G", "-d", "a=b c", "-d", "é=1&x=%zz&y=%41", url: "http://h/p?q=1")
        #expect(request.method == .get)
        #expect(request.body == nil)
        #expect(request.headerFields[.contentType] == nil)
        #expect(request.url.absoluteString == "http://h/p?q=1&a=b%20c&%C3%A9=1&x=%25zz&y=%41")
    }

    @Test func headWithGetKeepsHead() throws {
        let request = try request("-I", "-G", "-d", "a=b")
        #expect(request.method == .head)
        #expect(request.url.query == "a=b")
    }

    @Test func headWithDataIsTwoMethods() throws {
        let options = try ArgumentParser().parse(["-I", "-d", "a", "http://h/"])
        #expect(throws: UsageError.self) { try RequestBuilder(options: options, postData: PostData(pieces: options.data)) }
    }

    @Test func queryEncoder() {
        #expect(QueryEncoder.encode("a=b&c=d") == "a=b&c=d")
        #expect(QueryEncoder.encode("a b\u{7F}#") == "a%20b%7F%23")
        #expect(QueryEncoder.encode("100%") == "100%25")
        #expect(QueryEncoder.encode("%4") == "%254")
        #expect(QueryEncoder.encode("%e2%82%ac") == "%e2%82%ac")
        #expect(QueryEncoder.encode("€") == "%E2%82%AC")
        #expect(QueryEncoder.append("x=1", to: nil) == "x=1")
        #expect(QueryEncoder.append("x=1", to: "") == "x=1")
        #expect(QueryEncoder.append("x=1", to: "q") == "q&x=1")
    }

    @Test func headerArguments() {
        #expect(HeaderArgument("X-A: 1") == HeaderArgument(name: "X-A", action: .add("1")))
        #expect(HeaderArgument("X-A:1:2") == HeaderArgument(name: "X-A", action: .add("1:2")))
        #expect(HeaderArgument("Accept:") == HeaderArgument(name: "Accept", action: .remove))
        #expect(HeaderArgument("Accept:   ") == HeaderArgument(name: "Accept", action: .remove))
        #expect(HeaderArgument("X-Empty;") == HeaderArgument(name: "X-Empty", action: .add("")))
        #expect(HeaderArgument("X-Empty; ") == HeaderArgument(name: "X-Empty", action: .add("")))
        #expect(HeaderArgument("NoColon") == nil)
        #expect(HeaderArgument("X; y") == nil)
    }

    @Test func headersAreAddedRepeatedAndOverrideImplicitOnes() throws {
        let request = try request("-H", "X-A: 1", "-H", "X-A: 2", "-H", "X-E;", "-H", "Content-Type: text/plain", "-d", "x")
        #expect(request.headerFields[values: HTTPField.Name("X-A")!] == ["1", "2"])
        #expect(request.headerFields[HTTPField.Name("X-E")!] == "")
        #expect(request.headerFields[values: .contentType] == ["text/plain"])
    }

    @Test func emptyHeaderRemovesImplicitAndDefaultFields() throws {
        let builder = try builder("-H", "Content-Type:", "-H", "accept:", "-d", "x")
        let request = try builder.request(for: "http://h/")
        #expect(request.headerFields[.contentType] == nil)
        let defaults: HTTPFields = [.userAgent: "Ferry/0.1", .accept: "*/*"]
        #expect(builder.additionalHeaders(from: defaults) == [.userAgent: "Ferry/0.1"])
    }

    @Test(arguments: ["X: a\rb", "X: a\nb", "X: a\u{0}b", "X: a\r\nInjected: 1", "Bad Name: v", ": v"])
    func badHeadersAreRefusedBeforeSending(_ header: String) throws {
        let builder = try builder("-H", header)
        #expect(throws: NetworkError.self) { try builder.validate() }
        do {
            try builder.validate()
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(ExitCode(error) == .usage)
        }
    }

    @Test func urlsWithoutSchemeAreHTTP() throws {
        #expect(RequestBuilder.url(from: "127.0.0.1:8080")?.absoluteString == "http://127.0.0.1:8080/")
        #expect(RequestBuilder.url(from: "h/a?b=c")?.absoluteString == "http://h/a?b=c")
        #expect(RequestBuilder.url(from: "https://h")?.absoluteString == "https://h/")
        #expect(RequestBuilder.url(from: "[::1]:8080/x")?.absoluteString == "http://[::1]:8080/x")
        #expect(RequestBuilder.url(from: "http://") == nil)
        // curl 7.88 refuses a space in a URL with exit 3; so does ferry.
        #expect(RequestBuilder.url(from: "http://h/a b") == nil)
        // Dot segments go from the path, as curl 7.88 sends it; the query and %2e stay.
        #expect(RequestBuilder.url(from: "http://h/a/../echo")?.absoluteString == "http://h/echo")
        #expect(RequestBuilder.url(from: "h/a/./b/../c?x=/../y")?.absoluteString == "http://h/a/c?x=/../y")
        #expect(RequestBuilder.url(from: "http://h/../../x")?.absoluteString == "http://h/x")
        #expect(RequestBuilder.url(from: "http://h/a/b/..")?.absoluteString == "http://h/a/")
        #expect(RequestBuilder.url(from: "http://h/%2e%2e/x")?.absoluteString == "http://h/%2e%2e/x")
        let builder = try builder()
        #expect(throws: NetworkError(.badURL, reason: "")) { try builder.request(for: "http://") }
    }

    /// Existing escapes pass through unchanged while non-ASCII characters (and bytes a URL may
    /// not hold) are escaped as UTF-8: one café must not turn `%20` into `%2520`.
    @Test func typedURLKeepsItsEscapesAndEscapesTheRest() throws {
        let mixed = try #require(RequestBuilder.url(from: "http://h/get?q=café&s=a%20b"))
        #expect(mixed.query(percentEncoded: true) == "q=caf%C3%A9&s=a%20b")
        #expect(RequestBuilder.url(from: "h/é%41?x=%zz#frag#more")?.absoluteString == "http://h/%C3%A9%41?x=%25zz#frag%23more")
        #expect(RequestBuilder.url(from: "http://h/a?x=%7C|")?.query(percentEncoded: true) == "x=%7C%7C")
        #expect(RequestBuilder.url(from: "http://h/plain?s=a%20b")?.absoluteString == "http://h/plain?s=a%20b")
        #expect(mixed.path(percentEncoded: true) == "/get")
    }

    @Test func userGivesACredentialAndBasicUpFront() throws {
        let basic = try request("-u", "me:se:cret")
        #expect(basic.credential?.user == "me")
        #expect(basic.credential?.password == "se:cret", "split at the first colon, as curl")
        #expect(basic.headerFields[.authorization] == "Basic bWU6c2U6Y3JldA==")
        let digest = try request("--digest", "-u", "me:pw")
        #expect(digest.credential?.user == "me")
        #expect(digest.headerFields[.authorization] == nil, "Digest waits for the challenge")
        #expect(try request("-u", "me").credential?.password == "", "no prompt: an empty password")
        let own = try request("-u", "me:pw", "-H", "Authorization: Bearer x")
        #expect(own.headerFields[values: .authorization] == ["Bearer x"], "a -H Authorization is sent instead")
    }

    @Test func cookieStringsGoOnTheRequestAndFilesDoNot() throws {
        let request = try request("-b", "a=1; b=2", "-b", "some-file.txt")
        #expect(request.headerFields[.cookie] == "a=1; b=2")
        #expect(try self.request("-b", "a=1", "-H", "Cookie: b=2").headerFields[.cookie] == "b=2", "-H Cookie wins, as in curl")
        let options = try ArgumentParser().parse(["-b", "a=1", "-c", "-", "x"])
        #expect(CookieSetup(options).storage != nil, "-c starts the cookie engine")
        #expect(CookieSetup(try ArgumentParser().parse(["-b", "a=1", "x"])).storage == nil, "a string alone does not")
    }

    @Test func userAgentAndRefererReplaceTheDefaultAndGiveWayToH() throws {
        let defaults: HTTPFields = [.userAgent: "Ferry/0.1", .accept: "*/*"]
        let agent = try builder("-A", "probe/2", "-e", "http://from/page")
        let sent = try agent.request(for: "http://h/")
        #expect(sent.headerFields[values: .userAgent] == ["probe/2"])
        #expect(sent.headerFields[values: HTTPField.Name("Referer")!] == ["http://from/page"])
        #expect(agent.additionalHeaders(from: defaults) == [.accept: "*/*"], "-A replaces Ferry's User-Agent")
        // curl: -A '' sends no User-Agent at all.
        let none = try builder("-A", "")
        #expect(try none.request(for: "http://h/").headerFields[.userAgent] == nil)
        #expect(none.additionalHeaders(from: defaults) == [.accept: "*/*"])
        // A -H of the same field is what goes, once.
        let own = try self.request("-A", "probe/2", "-H", "User-Agent: mine", "-e", "http://a/", "-H", "Referer: http://b/")
        #expect(own.headerFields[values: .userAgent] == ["mine"])
        #expect(own.headerFields[values: HTTPField.Name("Referer")!] == ["http://b/"])
        #expect(try self.request().headerFields[HTTPField.Name("Referer")!] == nil)
    }

    @Test(arguments: [("-A", "probe\r\nX-Injected: 1", "option -A: "), ("-e", "http://a/\nX-Injected: 1", "option -e: ")])
    func userAgentAndRefererAreCheckedLikeH(_ option: String, _ value: String, _ blamed: String) throws {
        let builder = try builder(option, value)
        do {
            try builder.validate()
            Issue.record("\(option) with a line break was accepted")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.reason.hasPrefix(blamed), "\(error.reason)")
        }
    }

    @Test("';auto' names each redirecting page, after the URL before it (if any) went first")
    func refererAuto() throws {
        func options(_ arguments: String...) throws -> Options { try ArgumentParser().parse(arguments + ["http://h/"]) }
        let given = try options("-L", "-e", "http://a/;auto")
        #expect(given.referer == "http://a/" && given.autoReferer && given.namesRedirectingPage)
        #expect(try request("-L", "-e", "http://a/;auto").headerFields[values: HTTPField.Name("Referer")!] == ["http://a/"])
        // Alone, it sends no Referer until the first redirect.
        let alone = try options("-L", "--referer", ";auto")
        #expect(alone.referer == "" && alone.namesRedirectingPage)
        #expect(try request("-L", "-e", ";auto").headerFields[HTTPField.Name("Referer")!] == nil)
        // Without -L nothing is followed; a -H Referer wins on every request; the last -e counts.
        #expect(try !options("-e", ";auto").namesRedirectingPage)
        #expect(try !options("-L", "-e", ";auto", "-H", "Referer: http://mine/").namesRedirectingPage)
        let last = try options("-L", "-e", ";auto", "-e", "http://b/")
        #expect(last.referer == "http://b/" && !last.namesRedirectingPage)
    }

    @Test("the automatic Referer leaves out user information and the fragment, and https to http gets none",
          arguments: [
              ("http://u:p@h:8080/a/b?q=1#top", "http://x/", "http://h:8080/a/b?q=1"),
              ("https://h/a", "https://other/", "https://h/a"),
              ("http://h/a", "https://h/", "http://h/a"),
              ("https://u@h/a#f", "http://h/", nil),
          ] as [(String, String, String?)])
    func autoRefererValue(page: String, target: String, referer: String?) throws {
        #expect(AutoReferer.referer(leaving: try #require(URL(string: page)), for: try #require(URL(string: target))) == referer)
    }

    @Test func autoRefererReplacesOrRemovesTheFieldTheRedirectCarried() throws {
        let referer = try #require(HTTPField.Name("Referer"))
        var next = NetworkRequest(url: try #require(URL(string: "http://h/next")))
        try next.setValue("http://start/", forHTTPHeaderField: "Referer")
        let plain = NetworkResponse(url: try #require(URL(string: "http://u:p@h/page#x")), status: .found, headerFields: [:])
        #expect(AutoReferer.request(next, redirectedBy: plain).headerFields[values: referer] == ["http://h/page"])
        let secure = NetworkResponse(url: try #require(URL(string: "https://h/page")), status: .found, headerFields: [:])
        #expect(AutoReferer.request(next, redirectedBy: secure).headerFields[values: referer] == [], "https to http sends none")
    }

    @Test func maxFilesizeGoesOnEveryRequest() throws {
        #expect(try request("--max-filesize", "10").maximumResponseBodySize == 10)
        #expect(try request().maximumResponseBodySize == nil)
    }

    @Test func configurationFollowsCurl() throws {
        let options = try ArgumentParser().parse(["-m", "2.5", "--connect-timeout", "1", "--compressed", "-H", "User-Agent:", "a"])
        let builder = try RequestBuilder(options: options, postData: PostData(pieces: []))
        let configuration = ConfigurationFactory.configuration(for: options, builder: builder, tls: TLSSetup(options.tls), cookies: CookieSetup(options))
        #expect(configuration.timeoutIntervalForResource == .milliseconds(2500))
        #expect(configuration.timeoutIntervalForRequest == .milliseconds(2500))
        #expect(configuration.timeoutIntervalForConnect == .seconds(1))
        #expect(configuration.automaticallyDecodesContent)
        #expect(configuration.httpAdditionalHeaders[.userAgent] == nil)
        #expect(configuration.httpAdditionalHeaders[.accept] == "*/*")

        let plain = try ArgumentParser().parse(["a"])
        let plainConfiguration = ConfigurationFactory.configuration(
            for: plain, builder: try RequestBuilder(options: plain, postData: PostData(pieces: [])), tls: TLSSetup(plain.tls), cookies: CookieSetup(plain))
        #expect(plainConfiguration.automaticallyDecodesContent == false)
        #expect(plainConfiguration.timeoutIntervalForConnect == ConfigurationFactory.defaultConnectTimeout)
        #expect(plainConfiguration.timeoutIntervalForResource == ConfigurationFactory.unlimited)
        #expect(plainConfiguration.tlsConfiguration.resumesSessions, "TLS sessions are resumed unless --no-sessionid")
        #expect(plainConfiguration.eventLoopCount == 1, "one I/O thread, as curl's one thread")
        #expect(plainConfiguration.httpMaximumRedirects == 0, "a redirect is an answer unless -L")
        for (arguments, limit) in [(["-L", "a"], 50), (["-L", "--max-redirs", "3", "a"], 3), (["-L", "--max-redirs", "-1", "a"], Int.max),
                                 (["-L", "--max-redirs", "0", "a"], 1)] {
            let options = try ArgumentParser().parse(arguments)
            let configuration = ConfigurationFactory.configuration(
                for: options, builder: try RequestBuilder(options: options, postData: PostData(pieces: [])), tls: TLSSetup(options.tls), cookies: CookieSetup(options))
            #expect(configuration.httpMaximumRedirects == limit, "\(arguments)")
        }

        let fresh = try ArgumentParser().parse(["--no-sessionid", "a"])
        let freshConfiguration = ConfigurationFactory.configuration(
            for: fresh, builder: try RequestBuilder(options: fresh, postData: PostData(pieces: [])), tls: TLSSetup(fresh.tls), cookies: CookieSetup(fresh))
        #expect(freshConfiguration.tlsConfiguration.resumesSessions == false)
    }
}
