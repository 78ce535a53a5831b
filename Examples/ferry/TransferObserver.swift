import Ferry

/// Prints `-v` lines as one transfer's heads go out and come in, from the session's delegate
/// callbacks, and gives redirects `-e ';auto'`'s Referer. The callbacks run on the session's
/// serial delegate queue, in order, so the `>` and `<` lines come out in the order they
/// happened. Set only when one of the two is asked for: without it the transfer has no
/// delegate, and no event costs a hop to the delegate queue.
final class TransferObserver: SessionTaskDelegate {
    /// Where `-v` prints, or nil without `-v`.
    private let console: Console?
    /// `--show-credentials`: print Authorization and Proxy-Authorization values in full.
    private let showsCredentials: Bool
    /// Whether a redirect's request names the page that redirected (``AutoReferer``).
    private let namesRedirectingPage: Bool

    init(verboseTo console: Console?, showsCredentials: Bool, namesRedirectingPage: Bool) {
        self.console = console
        self.showsCredentials = showsCredentials
        self.namesRedirectingPage = namesRedirectingPage
    }

    /// The observer `options` ask for, or nil when they ask for neither `-v` nor `;auto`.
    static func make(for options: Options, console: Console) -> TransferObserver? {
        guard options.verbose || options.namesRedirectingPage else { return nil }
        return TransferObserver(verboseTo: options.verbose ? console : nil, showsCredentials: options.showsCredentials,
                                namesRedirectingPage: options.namesRedirectingPage)
    }

    func session(_ session: Session, task: SessionTask, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo) {
        guard let console else { return }
        let host = task.currentRequest.url.host ?? connection.remoteAddress
        console.writeError(HeadFormatter.connectionNote(host: host, connection) + HeadFormatter.verboseRequest(head, showingCredentials: showsCredentials))
    }

    func session(_ session: Session, task: SessionTask, didReceive response: NetworkResponse) {
        console?.writeError(HeadFormatter.verboseResponse(response))
    }

    /// A redirect's head is printed too (with `-L`, as curl prints every hop); the redirect
    /// is followed, with the page it came from as its Referer under `;auto`.
    func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                 newRequest request: NetworkRequest, completionHandler: @escaping @Sendable (NetworkRequest?) -> Void) {
        console?.writeError(HeadFormatter.verboseResponse(response))
        completionHandler(namesRedirectingPage ? AutoReferer.request(request, redirectedBy: response) : request)
    }
}
