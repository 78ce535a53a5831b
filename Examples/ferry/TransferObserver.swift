import Ferry

/// One transfer's task delegate: prints `-v` lines as its heads go out and come in, and gives
/// a `-F` form's body again when a request is sent again.
///
/// The calls run on the session's serial delegate queue, in order, so the `>` and `<` lines
/// come out in the order they happened. Set only with `-v` or `-F`: without them the transfer
/// has no delegate, and no event costs a hop to the delegate queue.
final class TransferObserver: SessionTaskDelegate {
    /// Where `-v` lines go; nil without `-v`.
    private let console: Console?
    /// The `-F` form, whose streamed body is read once per request sent.
    private let form: MultipartFormData?

    init(console: Console?, form: MultipartFormData? = nil) {
        self.console = console
        self.form = form
    }

    func session(_ session: Session, task: SessionTask, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo) {
        guard let console else { return }
        let host = task.currentRequest.url.host ?? connection.remoteAddress
        console.writeError(HeadFormatter.connectionNote(host: host, connection) + HeadFormatter.verboseRequest(head))
    }

    func session(_ session: Session, task: SessionTask, didReceive response: NetworkResponse) {
        console?.writeError(HeadFormatter.verboseResponse(response))
    }

    /// A redirect's head is printed too (with `-L`, as curl prints every hop); the redirect
    /// is followed.
    func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                 newRequest request: NetworkRequest, completionHandler: @escaping @Sendable (NetworkRequest?) -> Void) {
        console?.writeError(HeadFormatter.verboseResponse(response))
        completionHandler(request)
    }

    /// A 307 or 308 with `-L`, or an answer to an authentication challenge, sends the form
    /// again: a stream is read once, so the session asks for a new one, and the form makes
    /// it from the first byte (files are opened again), as curl rewinds its form.
    func session(_ session: Session, task: SessionTask, needNewBodyStream completionHandler: @escaping @Sendable (RequestBody?) -> Void) {
        completionHandler(form?.requestBody)
    }
}
