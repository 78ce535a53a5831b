import Ferry
import Synchronization

/// Prints `-v` lines as one transfer's heads go out and come in, from the session's delegate
/// callbacks, gives redirects `-e ';auto'`'s Referer, keeps the heads of the redirects followed
/// for `-L -i`/`-I`, keeps `-X`'s method on every hop of `-L`, and refuses the first redirect
/// under `-L --max-redirs 0`. The callbacks run on the session's serial delegate queue, in
/// order, so the `>` and `<` lines come out in the order they happened. Set only when one of these is asked for: without it the transfer
/// has no delegate, and no event costs a hop to the delegate queue.
final class TransferObserver: SessionTaskDelegate {
    /// Where `-v` prints, or nil without `-v`.
    private let console: Console?
    /// `--show-credentials`: print Authorization and Proxy-Authorization values in full.
    private let showsCredentials: Bool
    /// Whether a redirect's request names the page that redirected (``AutoReferer``).
    private let namesRedirectingPage: Bool
    /// `-L -i`/`-I`: keep each redirect's head for the output, as curl writes every hop's.
    private let keepsRedirectHeads: Bool
    /// `-L --max-redirs 0`: curl follows no redirect and fails on the first (exit 47).
    private let refusesRedirects: Bool
    /// `-X` with `-L`: the method every hop is sent with (curl's custom request).
    private let keptMethod: HTTPRequest.Method?
    /// The fields `-H` adds (lower-cased names): curl sends them on every hop, whatever the
    /// redirect does to the body.
    private let typedFieldNames: Set<String>
    /// What the redirect callbacks leave for ``Transfer``.
    private struct Redirects {
        var heads = ""
        var refused = false
    }
    private let redirects = Mutex(Redirects())

    init(verboseTo console: Console?, showsCredentials: Bool, namesRedirectingPage: Bool,
         keepsRedirectHeads: Bool = false, refusesRedirects: Bool = false, keptMethod: HTTPRequest.Method? = nil,
         typedFieldNames: Set<String> = []) {
        self.console = console
        self.showsCredentials = showsCredentials
        self.namesRedirectingPage = namesRedirectingPage
        self.keepsRedirectHeads = keepsRedirectHeads
        self.refusesRedirects = refusesRedirects
        self.keptMethod = keptMethod
        self.typedFieldNames = typedFieldNames
    }

    /// The observer `options` ask for, or nil when they ask for none of `-v`, `;auto`,
    /// `-L` with `-i`/`-I`/`-D`, `-L` with `-X`, and `-L --max-redirs 0`.
    static func make(for options: Options, console: Console) -> TransferObserver? {
        let keepsRedirectHeads = options.followRedirects && (options.include || options.headOnly || options.dumpHeader != nil)
        let refusesRedirects = options.followRedirects && options.maxRedirects == 0
        let keptMethod = options.followRedirects ? options.method.flatMap { HTTPRequest.Method($0) } : nil
        guard options.verbose || options.namesRedirectingPage || keepsRedirectHeads || refusesRedirects || keptMethod != nil else {
            return nil
        }
        return TransferObserver(verboseTo: options.verbose ? console : nil, showsCredentials: options.showsCredentials,
                                namesRedirectingPage: options.namesRedirectingPage,
                                keepsRedirectHeads: keepsRedirectHeads, refusesRedirects: refusesRedirects, keptMethod: keptMethod,
                                typedFieldNames: Set(options.headerArguments.compactMap { $0.action == .remove ? nil : $0.canonicalName }))
    }

    /// The heads of the redirects followed so far, as `-i` writes them, in order; each is
    /// handed out once. Complete once the task's answer (or failure) arrived: the session asks
    /// about a redirect before it sends the next request.
    func takeRedirectHeads() -> String {
        redirects.withLock { redirects in
            defer { redirects.heads = "" }
            return redirects.heads
        }
    }

    /// Whether a redirect was refused for `--max-redirs 0`: the response delivered is it.
    var refusedRedirect: Bool { redirects.withLock(\.refused) }

    func session(_ session: Session, task: SessionTask, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo) {
        guard let console else { return }
        let host = task.currentRequest.url.host ?? connection.remoteAddress
        console.writeError(HeadFormatter.connectionNote(host: host, connection) + HeadFormatter.verboseRequest(head, showingCredentials: showsCredentials))
    }

    func session(_ session: Session, task: SessionTask, didReceive response: NetworkResponse) {
        console?.writeError(HeadFormatter.verboseResponse(response))
    }

    /// A redirect's head is printed too (with `-L`, as curl prints every hop) and kept for
    /// `-i`; the redirect is followed, with the page it came from as its Referer under
    /// `;auto` and `-X`'s method, unless `--max-redirs 0` refuses it (the 3xx is then the
    /// task's response).
    func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                 newRequest request: NetworkRequest, completionHandler: @escaping @Sendable (NetworkRequest?) -> Void) {
        if refusesRedirects {
            // Delivered as the task's response: `-v` prints its head then.
            redirects.withLock { $0.refused = true }
            return completionHandler(nil)
        }
        console?.writeError(HeadFormatter.verboseResponse(response))
        if keepsRedirectHeads {
            let head = HeadFormatter.included(response)
            redirects.withLock { $0.heads += head }
        }
        var next = namesRedirectingPage ? AutoReferer.request(request, redirectedBy: response) : request
        if let keptMethod { next = Self.request(next, keeping: keptMethod, after: response.statusCode, typed: typedFieldNames) }
        completionHandler(next)
    }

    /// `request`, which a `status` redirect leads to, as curl sends it under `-X METHOD -L`:
    /// with `METHOD` whatever the redirect made of it, and with a body only after 307 and 308.
    /// (curl turns the POST that `-d`, `-F` and `--json` make into a GET on 301, 302 and 303,
    /// dropping the data, then names the GET with `-X`'s method: `-X POST -d x` on a 302 sends
    /// a POST without a body.) Fields of `typed` names, which `-H` added, stay: curl sends them
    /// on every request.
    static func request(_ request: NetworkRequest, keeping method: HTTPRequest.Method, after status: Int,
                        typed: Set<String> = []) -> NetworkRequest {
        var next = request
        next.method = method
        guard status != 307 && status != 308 else { return next }
        let typedFields = next.headerFields.filter { typed.contains($0.name.canonicalName) }
        next.removeBody()
        let removed = Set(typedFields.map(\.name).filter { next.headerFields[$0] == nil })
        next.headerFields.append(contentsOf: typedFields.filter { removed.contains($0.name) })
        return next
    }
}
