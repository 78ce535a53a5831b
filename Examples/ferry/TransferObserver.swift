import Ferry

/// Prints `-v` lines as one transfer's heads go out and come in, from the session's delegate
/// callbacks. They run on the session's serial delegate queue, in order, so the `>` and `<`
/// lines come out in the order they happened. Set only with `-v`: without it the transfer
/// has no delegate, and no event costs a hop to the delegate queue.
final class TransferObserver: SessionTaskDelegate {
    private let console: Console
    /// `--show-credentials`: print Authorization and Proxy-Authorization values in full.
    private let showsCredentials: Bool

    init(console: Console, showsCredentials: Bool) {
        self.console = console
        self.showsCredentials = showsCredentials
    }

    func session(_ session: Session, task: SessionTask, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo) {
        let host = task.currentRequest.url.host ?? connection.remoteAddress
        console.writeError(HeadFormatter.connectionNote(host: host, connection) + HeadFormatter.verboseRequest(head, showingCredentials: showsCredentials))
    }

    func session(_ session: Session, task: SessionTask, didReceive response: NetworkResponse) {
        console.writeError(HeadFormatter.verboseResponse(response))
    }

    /// A redirect's head is printed too (with `-L`, as curl prints every hop); the redirect
    /// is followed.
    func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                 newRequest request: NetworkRequest, completionHandler: @escaping @Sendable (NetworkRequest?) -> Void) {
        console.writeError(HeadFormatter.verboseResponse(response))
        completionHandler(request)
    }
}
