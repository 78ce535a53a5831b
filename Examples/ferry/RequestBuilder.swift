import Ferry
import FoundationEssentials

/// Turns ``Options`` into the `NetworkRequest` sent for each URL, as curl would build it.
///
/// Built once per run: `@file` data is read once, and every header is checked before the first
/// byte goes out, so a refused `-H` stops the run with exit code 2 and nothing is sent.
struct RequestBuilder: Sendable {
    /// The method for every request.
    let method: HTTPRequest.Method
    /// The body, or nil (no data, or the data went into the query with `-G`).
    let body: [UInt8]?
    /// The `-F` form, set by ``sending(_:)`` once its files were checked; its body is
    /// streamed, and each request gets a new stream from it.
    private(set) var form: MultipartFormData?
    /// `-G` data to append to each URL's query.
    let queryData: String?
    /// `--max-filesize`.
    let maximumBodySize: Int64?
    private let headers: [HeaderArgument]
    private let implicitFields: [(name: String, value: String)]
    /// `-u`: answers challenges of the command line's URLs (and, for Basic, goes with the
    /// first request, as curl sends it).
    private let credential: (user: String, password: String)?
    /// `-b name=value` cookies, sent to the command line's URLs.
    private let cookieString: String?
    /// `-A` and `-e`.
    private let userAgent: String?
    private let referer: String?
    /// Whether credentials go as Basic with the first request (`--basic`, the default).
    private let basicUpFront: Bool

    /// Plans the requests (a `-F` form is added with ``sending(_:)``).
    /// - Throws: ``UsageError`` when the options ask for two methods (`-I` with `-d`, `-F`
    ///   with `-d`, `--json` or `-I`), as curl.
    init(options: Options, postData: PostData) throws(UsageError) {
        let hasData = !options.data.isEmpty
        let hasForm = !options.form.isEmpty
        if options.headOnly && hasData && !options.useGet && options.method == nil {
            throw UsageError(
                "You can only select one HTTP request method! You asked for both POST (using -d, --data or -F) and HEAD (-I, --head).",
                suggestsHelp: false)
        }
        if hasForm && (hasData || options.headOnly) {
            let other = hasData ? "POST (-d, --data)" : "HEAD (-I, --head)"
            throw UsageError("You can only select one HTTP request method! You asked for both \(other) and multipart formpost (-F, --form).",
                             suggestsHelp: false)
        }
        // curl's -G only moves -d data into the query: a form is POSTed whatever -G says.
        let defaultMethod: HTTPRequest.Method =
            options.headOnly ? .head : hasForm ? .post : (options.useGet || !hasData) ? .get : .post
        method = options.method.flatMap { HTTPRequest.Method($0) } ?? defaultMethod
        maximumBodySize = options.maxFilesize
        headers = options.headerArguments

        var implicit: [(name: String, value: String)] = []
        if hasData && options.useGet {
            body = nil
            queryData = String(decoding: postData.bytes, as: UTF8.self)
        } else if hasData {
            body = postData.bytes
            queryData = nil
            implicit.append(("Content-Type", postData.isJSON ? "application/json" : "application/x-www-form-urlencoded"))
        } else {
            body = nil
            queryData = nil
        }
        // curl's --json sets Accept even with -G, as the reply format is what it is about.
        if postData.isJSON { implicit.append(("Accept", "application/json")) }
        // -r asks for bytes of a GET or HEAD. When -C has bytes to continue, the library's own
        // range replaces it (DownloadTarget), as curl's resume offset wins over -r.
        if let range = options.range, body == nil, !hasForm {
            implicit.append(("Range", "bytes=" + range))
        }
        implicitFields = implicit
        basicUpFront = options.authScheme == .basic
        credential = options.user.map(Options.userAndPassword)
        cookieString = CookieSetup.cookieString(options)
        userAgent = options.userAgent
        referer = options.referer
    }

    /// This plan with the `-F` form as every request's body.
    func sending(_ form: MultipartFormData) -> RequestBuilder {
        var planned = self
        planned.form = form
        return planned
    }

    /// Checks every `-H`, `-A`, `-e`, `-b` and `-u` against Ferry's rules without sending anything.
    /// - Throws: ``NetworkError`` with code `invalidRequest` for a bad name or a CR, LF or NUL;
    ///   its reason starts with the option to blame (`option -b: …`).
    func validate() throws(NetworkError) {
        _ = try request(for: URL(string: "http://localhost/")!)
    }

    /// Session-wide fields: the defaults minus any the user named with `-H` (a user field
    /// replaces the default, and `-H 'Name:'` must remove it, as curl), and minus the
    /// User-Agent when `-A` gives one (`-A ''` sends none, as curl).
    func additionalHeaders(from defaults: HTTPFields) -> HTTPFields {
        var named = Set(headers.map(\.canonicalName))
        if userAgent != nil { named.insert("user-agent") }
        return HTTPFields(defaults.filter { !named.contains($0.name.canonicalName) })
    }

    /// The request for a URL given on the command line.
    /// - Throws: ``NetworkError`` `badURL` for a URL that cannot be parsed, `invalidRequest` for a bad header.
    func request(for text: String) throws(NetworkError) -> NetworkRequest {
        guard let url = Self.url(from: text) else {
            throw NetworkError(.badURL, reason: "URL using bad/illegal format or missing URL")
        }
        return try request(for: url)
    }

    private func request(for base: URL) throws(NetworkError) -> NetworkRequest {
        var url = base
        if let queryData, var components = URLComponents(url: base, resolvingAgainstBaseURL: false) {
            components.percentEncodedQuery = QueryEncoder.append(queryData, to: components.percentEncodedQuery)
            url = components.url ?? base
        }
        var request = try Self.naming("option -F") { () throws(NetworkError) in
            try form.map { form throws(NetworkError) in try Self.formRequest(form, method: method, url: url) }
        } ?? NetworkRequest(url: url, method: method, body: body.map { .bytes($0) })
        request.maximumResponseBodySize = maximumBodySize
        let named = Set(headers.map(\.canonicalName))
        // A -H field replaces the form's own Content-Type or Content-Length, as curl's does.
        for header in headers where form != nil && Self.formFields.contains(header.canonicalName) {
            try Self.naming("option -H") { () throws(NetworkError) in try request.setValue(nil, forHTTPHeaderField: header.name) }
        }
        // -u, or else the URL's user information, as curl reads them; a -H Authorization is
        // the user's own answer, which curl sends instead of either.
        if let given = credential ?? userInformation(of: url), !named.contains("authorization") {
            request.credential = Credential(user: given.user, password: given.password, persistence: .none)
            if basicUpFront {
                try Self.naming(credential == nil ? "URL user information" : "option -u") { () throws(NetworkError) in
                    try request.setBasicAuthorization(user: given.user, password: given.password)
                }
            }
        }
        // A -H Cookie replaces -b's cookies, as in curl; so does -H User-Agent -A's, and
        // -H Referer -e's.
        if let cookieString, !named.contains("cookie") {
            try Self.naming("option -b") { () throws(NetworkError) in try request.setValue(cookieString, forHTTPHeaderField: "Cookie") }
        }
        if let userAgent, !userAgent.isEmpty, !named.contains("user-agent") {
            try Self.naming("option -A") { () throws(NetworkError) in try request.setValue(userAgent, forHTTPHeaderField: "User-Agent") }
        }
        if let referer, !referer.isEmpty, !named.contains("referer") {
            try Self.naming("option -e") { () throws(NetworkError) in try request.setValue(referer, forHTTPHeaderField: "Referer") }
        }
        for header in headers {
            try Self.naming("option -H") { () throws(NetworkError) in
                if case .add(let value) = header.action {
                    // curl keeps the form's boundary in a Content-Type of the user's.
                    let boundary = header.canonicalName == "content-type" ? form.map { "; boundary=" + $0.boundary } : nil
                    try request.addValue(value + (boundary ?? ""), forHTTPHeaderField: header.name)
                } else {
                    // Validate the name even for a removal, so a typo is reported, not ignored.
                    try request.setValue(nil, forHTTPHeaderField: header.name)
                }
            }
        }
        for field in implicitFields where !named.contains(field.name.lowercased()) {
            try request.setValue(field.value, forHTTPHeaderField: field.name)
        }
        return request
    }

    /// Runs `body`; a ``NetworkError`` it throws gets `source` (`option -u`) before its reason,
    /// so the message names what the user typed.
    private static func naming<T>(_ source: String, _ body: () throws(NetworkError) -> T) throws(NetworkError) -> T {
        do throws(NetworkError) {
            return try body()
        } catch {
            throw NetworkError(error.code, reason: "\(source): \(error.reason)", failingURL: error.failingURL,
                               underlyingError: error.underlyingError)
        }
    }

    /// The fields ``formRequest(_:method:url:)`` sets.
    private static let formFields: Set<String> = ["content-type", "content-length"]

    /// Ferry's own serializer with no default fields: the session's (curl's) are used instead.
    private static let formSerializer: HTTPRequestSerializer = {
        var serializer = HTTPRequestSerializer()
        serializer.httpRequestHeaders = [:]
        return serializer
    }()

    /// The library's multipart request: the form's streamed body, its `Content-Type` with the
    /// boundary and its exact `Content-Length`.
    private static func formRequest(_ form: MultipartFormData, method: HTTPRequest.Method, url: URL) throws(NetworkError) -> NetworkRequest {
        // The library refuses a form with GET or HEAD, which carry no body; curl's -X only
        // changes the method's name, so the form is built for POST and then renamed.
        let carrier: HTTPRequest.Method = method == .get || method == .head ? .post : method
        var request = try formSerializer.multipartFormRequest(method: carrier, url: url, formData: form)
        request.method = method
        return request
    }

    /// curl sends a URL's `user:password@` as it sends `-u` (Basic up front unless `--digest`
    /// or `--anyauth` asked to wait for the challenge).
    private func userInformation(of url: URL) -> (user: String, password: String)? {
        guard let user = url.user(percentEncoded: false), !user.isEmpty else { return nil }
        return (user, url.password(percentEncoded: false) ?? "")
    }

    /// Parses a command-line URL: no scheme means `http://` and an empty path means `/`, as curl.
    /// A space or control character is refused (exit 3) as curl refuses it, rather than
    /// silently percent-encoded as Foundation would.
    /// Whether `text` starts with a scheme (curl's test: it contains `://`).
    private static func hasScheme(_ text: String) -> Bool {
        var utf8 = text.utf8.makeIterator()
        var matched = 0
        while let byte = utf8.next() {
            switch (matched, byte) {
            case (0, UInt8(ascii: ":")): matched = 1
            case (1, UInt8(ascii: "/")): matched = 2
            case (2, UInt8(ascii: "/")): return true
            case (_, UInt8(ascii: ":")): matched = 1
            default: matched = 0
            }
        }
        return false
    }

    static func url(from typed: String) -> URL? {
        guard !typed.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else { return nil }
        let hasScheme = Self.hasScheme(typed)
        let text = escapingTail(of: typed, hasScheme: hasScheme)
        // The common case, a URL with a scheme and a path, is parsed once.
        if hasScheme, let url = URL(string: text), let host = url.host(), !host.isEmpty, !url.path(percentEncoded: true).isEmpty {
            return removingDotSegments(url)
        }
        guard var components = URLComponents(string: hasScheme ? text : "http://" + text),
              let host = components.host, !host.isEmpty else { return nil }
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        return components.url.map(removingDotSegments)
    }

    /// `url` without the `.` and `..` segments of its path (RFC 3986 §5.2.4), as curl sends
    /// it: `/a/../b` asks for `/b`. The query and escaped dots (`%2e`) are left as they are.
    private static func removingDotSegments(_ url: URL) -> URL {
        url.path(percentEncoded: true).contains("/.") ? url.standardized : url
    }

    /// `text` with its path, query and fragment escaped where needed (``QueryEncoder/encodeURLTail(_:)``);
    /// the scheme and authority are left to the URL parser.
    private static func escapingTail(of text: String, hasScheme: Bool) -> String {
        var authorityStart = text.startIndex
        if hasScheme, let separator = text.firstRange(of: "://") { authorityStart = separator.upperBound }
        guard let tailStart = text[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }),
              let encoded = QueryEncoder.encodeURLTail(text[tailStart...]) else { return text }
        return String(text[..<tailStart]) + encoded
    }
}
