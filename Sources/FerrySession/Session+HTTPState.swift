import FerryEngine
import FoundationEssentials
import HTTPTypes

// The state a session keeps across requests on the caller's behalf: cookies (RFC 6265bis,
// ``SessionConfiguration/httpCookieStorage``) and Basic answers already accepted
// (``PreemptiveAuthentication``). Both are applied to each exchange as it is prepared, so a
// redirect's next hop gets the cookies and credentials of its own URL; a session that has none
// pays a check of each.

extension Session {
    /// Adds the storage's cookies and an accepted Basic answer to the fields `request` sends.
    /// - Returns: The Basic answer added, if any.
    func addHTTPState(to fields: inout HTTPFields, for request: NetworkRequest) -> PreemptiveAuthentication.Answer? {
        var upFront: PreemptiveAuthentication.Answer?
        if let answer = preemptiveAuthentication.answer(for: request), fields[.authorization] == nil {
            fields[.authorization] = answer.authorization
            upFront = answer
        }
        addCookies(to: &fields, for: request)
        return upFront
    }

    private func addCookies(to fields: inout HTTPFields, for request: NetworkRequest) {
        guard request.httpShouldHandleCookies, configuration.httpShouldSetCookies,
              let storage = configuration.httpCookieStorage,
              let cookies = storage.cookieHeaderValue(for: request.url) else { return }
        // After a Cookie field the caller set: the encoder joins them into one line.
        fields.append(HTTPField(name: .cookie, value: cookies))
    }

    /// The `Set-Cookie` values of a response head; nil, without allocating, when it has none
    /// (a name compare per field: the common response pays no more).
    static func setCookieValues(in fields: HTTPFields) -> [String]? {
        var values: [String]?
        for field in fields {
            // The length first: a string compare that fails takes the stdlib's slow path.
            let name = field.name.canonicalName
            guard name.utf8.count == 10, name == "set-cookie" else { continue }
            if values == nil { values = [field.value] } else { values?.append(field.value) }
        }
        return values
    }

    /// Keeps the cookies (`Set-Cookie` values) a response to `request` sets, as the
    /// configuration and the request allow.
    func storeCookies(_ values: [String], for request: NetworkRequest) {
        guard request.httpShouldHandleCookies, configuration.httpShouldSetCookies,
              let storage = configuration.httpCookieStorage else { return }
        let mainDocumentURL: URL?
        switch configuration.httpCookieAcceptPolicy {
        case .never: return
        case .always: mainDocumentURL = nil
        case .onlyFromMainDocumentDomain: mainDocumentURL = request.mainDocumentURL
        }
        storage.storeCookies(fromSetCookieFields: values, for: request.url, mainDocumentURL: mainDocumentURL)
    }
}
