import FoundationEssentials
import HTTPTypes

/// Why a redirect cannot be followed.
enum RedirectFailure: Error, Equatable {
    /// More redirects than the configuration allows.
    case tooMany(limit: Int)
    /// The Location names a scheme other than http or https.
    case unsupportedScheme(location: String)
    /// The Location is not a URL, or names no host.
    case badLocation(location: String)
    /// An https → http redirect the configuration refuses.
    case insecure(location: String)
    /// A redirect to plain http the transport security policy refuses; the words say why.
    case refusedByPolicy(String)
}

/// What a task does with a response head, as curl `-L` and URLSession do (RFC 9110 §15.4):
/// pure, no I/O. ``SessionTask`` asks it for every response and runs what it says.
enum RedirectPolicy {
    enum Outcome {
        /// Not a redirect to follow: the response is the task's.
        case deliver
        /// Follow: send this request next.
        case follow(NetworkRequest)
        /// A redirect that must not be followed fails the task.
        case fail(RedirectFailure)
    }

    /// Whether `status` redirects (300, 304 and 305 do not).
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: return true
        default: return false
        }
    }

    /// Decides about a response to `request`, after `followed` redirects so far: without a
    /// Location, or with an empty one, the response is the task's.
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - location: Its Location field, if any.
    ///   - request: The request it answers.
    ///   - followed: Redirects this task has followed already.
    ///   - configuration: The limit (``SessionConfiguration/httpMaximumRedirects``) and the
    ///     https → http rule (``SessionConfiguration/allowsInsecureRedirects``).
    static func decide(status: Int, location: String?, request: NetworkRequest, followed: Int,
                       configuration: SessionConfiguration) -> Outcome {
        // An empty Location names this very page (RFC 3986 §4.4): following it would only ask
        // again; the 3xx is the answer, as curl takes it.
        guard isRedirect(status), let location, !location.isEmpty, configuration.httpMaximumRedirects > 0 else {
            return .deliver
        }
        guard followed < configuration.httpMaximumRedirects else {
            return .fail(.tooMany(limit: configuration.httpMaximumRedirects))
        }
        guard var target = URL(string: location, relativeTo: request.url)?.absoluteURL else {
            return .fail(.badLocation(location: location))
        }
        let scheme = target.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { return .fail(.unsupportedScheme(location: location)) }
        guard let host = target.host(percentEncoded: false), !host.isEmpty else { return .fail(.badLocation(location: location)) }
        if request.url.scheme?.lowercased() == "https" && scheme == "http" && !configuration.allowsInsecureRedirects {
            return .fail(.insecure(location: location))
        }
        if let refusal = configuration.transportSecurity.refusal(of: target, isRedirect: true) {
            return .fail(.refusedByPolicy(refusal))
        }
        // A fragment the new URL lacks is inherited (RFC 9110 §10.2.2).
        if target.fragment == nil, let fragment = request.url.fragment, let inherited = URL(string: target.absoluteString + "#" + fragment) {
            target = inherited
        }
        var next = request
        next.url = target
        if changesToGet(status: status, method: request.method) {
            next.method = .get
            next.removeBody()
        }
        // A stream body is kept: the task asks its delegate for a new stream to send (a stream
        // cannot be read twice), or takes the 3xx as the answer.
        if !sameOrigin(request.url, target) {
            // A proxy's credential belongs to the route, which another origin may not share (a
            // no_proxy host, another scheme's proxy): never carried over, whatever the
            // configuration trusts. A proxy that asks again is answered again.
            next.headerFields[.proxyAuthorization] = nil
            if !configuration.redirectsKeepCredentials {
                // Credentials are for the origin they were given to (the storage's cookies are
                // chosen again for the new URL when its request is prepared).
                for name in [HTTPField.Name.authorization, .cookie] { next.headerFields[name] = nil }
                next.credential = nil
                // User information in a Location to another origin is the redirecting server's
                // choice of credential for someone else: not used (curl uses it only when
                // trusted with --location-trusted, as here).
                next.url = withoutUserInformation(next.url)
            }
        }
        return .follow(next)
    }

    /// 301 and 302 turn POST into GET, 303 turns anything but HEAD into GET (what browsers,
    /// curl and URLSession do); 307 and 308 keep the method and body.
    static func changesToGet(status: Int, method: HTTPRequest.Method) -> Bool {
        switch status {
        case 301, 302: return method == .post
        case 303: return method != .head && method != .get
        default: return false
        }
    }

    /// `url` without its user name and password.
    static func withoutUserInformation(_ url: URL) -> URL {
        guard url.user(percentEncoded: true) != nil || url.password(percentEncoded: true) != nil,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        return components.url ?? url
    }

    /// Same scheme, host and port (default ports filled in).
    static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        Origin(first) == Origin(second)
    }
}
