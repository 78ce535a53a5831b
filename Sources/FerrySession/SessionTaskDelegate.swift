import FoundationEssentials
import HTTPTypes

/// Receives one task's events: the head it sent, upload progress, the response, metrics and
/// its completion. The counterpart of `URLSessionTaskDelegate`.
///
/// A task's own ``SessionTask/delegate`` (or the delegate given to an async call such as
/// ``Session/data(for:delegate:)``) receives its events; a task without one reports to the
/// session's ``Session/delegate`` when that conforms to this protocol. Every method has a
/// default that does nothing.
///
/// - Important: Methods are called on the session's ``Session/delegateQueue``, a serial queue,
///   never on an engine thread. For one task they arrive in order:
///   ``session(_:task:didFinishCollecting:)``, then
///   ``session(_:task:didCompleteWithError:)``, then the task's completion handler; an async
///   call returns, or its body sequence ends, after them.
public protocol SessionTaskDelegate: AnyObject, Sendable {
    /// The request head was written to a connection.
    /// - Parameters:
    ///   - session: The session running the task.
    ///   - task: The task.
    ///   - head: The head exactly as sent (method, target, Host and every field).
    ///   - connection: The connection it went out on.
    func session(_ session: Session, task: SessionTask, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo)

    /// Body bytes were written.
    /// - Parameters:
    ///   - session: The session running the task.
    ///   - task: The task.
    ///   - bytesSent: Bytes written since the last call.
    ///   - totalBytesSent: Bytes written so far by this exchange (a body sent again, after a
    ///     307 or to answer a 401, counts from 0 again).
    ///   - totalBytesExpectedToSend: The body's length, if known.
    func session(_ session: Session, task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64?)

    /// The response head arrived.
    func session(_ session: Session, task: SessionTask, didReceive response: NetworkResponse)

    /// A redirect (301, 302, 303, 307 or 308) is about to be followed with `request` (already
    /// adjusted: method, body and, across origins, credentials). Answer `request`, a changed
    /// request, or nil to take the 3xx response (and its body) as the task's. No body byte is
    /// read until `completionHandler` is called (from any thread). The default calls the async
    /// form. Only the task's own delegate or the session's task delegate is asked; a task
    /// without either follows.
    func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                 newRequest request: NetworkRequest, completionHandler: @escaping @Sendable (NetworkRequest?) -> Void)

    /// A redirect is about to be followed (async form). The default follows it: `request`.
    func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                 newRequest request: NetworkRequest) async -> NetworkRequest?

    /// The server asked for a proof of identity (a 401 with a Basic or Digest challenge the
    /// session's ``SessionConfiguration/httpAuthenticationMethods`` allow). Answer
    /// `(.useCredential, credential)` to send the request again with it,
    /// `.performDefaultHandling` to send the challenge's ``AuthenticationChallenge/proposedCredential``
    /// (the request's own, the URL's user information, or the credential storage's default)
    /// unless it failed already, `.rejectProtectionSpace` to be asked about the next space the
    /// server offered (its Basic challenge after a Digest one) or, with none left, to take the
    /// 401 as the task's response, `.cancelAuthenticationChallenge` to cancel the task. A credential the server
    /// refused is not sent again: the next 401 is the response. No body byte is read until
    /// `completionHandler` is called (from any thread). The default calls the async form.
    func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void)

    /// The server asked for a proof of identity (async form). The default answers
    /// `.performDefaultHandling`.
    func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge) async
        -> (AuthChallengeDisposition, Credential?)

    /// The request must be sent again (a 307 or 308 redirect, an answer to a challenge, a 417
    /// refusing the `Expect: 100-continue` the session added) and its body was a stream, which
    /// cannot be read twice: give a new body with the same bytes, or nil to take the response
    /// (the 3xx, 401 or 417) as the task's. The default calls the
    /// async form.
    func session(_ session: Session, task: SessionTask, needNewBodyStream completionHandler: @escaping @Sendable (RequestBody?) -> Void)

    /// A new body for the request sent again (async form). The default gives none.
    func session(_ session: Session, needNewBodyStreamForTask task: SessionTask) async -> RequestBody?

    /// The task's metrics, once it completed (before ``session(_:task:didCompleteWithError:)``).
    func session(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics)

    /// The task completed: `error` is nil on success (an HTTP error status is a success here).
    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?)
}

extension SessionTaskDelegate {
    /// Does nothing.
    public func session(_ session: Session, task: SessionTask, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo) {}
    /// Does nothing.
    public func session(_ session: Session, task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64?) {}
    /// Does nothing.
    public func session(_ session: Session, task: SessionTask, didReceive response: NetworkResponse) {}

    /// Asks the async form.
    public func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                        newRequest request: NetworkRequest, completionHandler: @escaping @Sendable (NetworkRequest?) -> Void) {
        Task { completionHandler(await self.session(session, task: task, willPerformHTTPRedirection: response, newRequest: request)) }
    }

    /// Follows the redirect.
    public func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                        newRequest request: NetworkRequest) async -> NetworkRequest? {
        request
    }

    /// Asks the async form.
    public func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge,
                        completionHandler: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void) {
        Task {
            let (disposition, credential) = await self.session(session, task: task, didReceive: challenge)
            completionHandler(disposition, credential)
        }
    }

    /// Performs the default handling.
    public func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge) async
        -> (AuthChallengeDisposition, Credential?) {
        (.performDefaultHandling, nil)
    }

    /// Asks the async form.
    public func session(_ session: Session, task: SessionTask,
                        needNewBodyStream completionHandler: @escaping @Sendable (RequestBody?) -> Void) {
        Task { completionHandler(await self.session(session, needNewBodyStreamForTask: task)) }
    }

    /// Gives no new body: the response stands.
    public func session(_ session: Session, needNewBodyStreamForTask task: SessionTask) async -> RequestBody? { nil }

    /// Does nothing.
    public func session(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics) {}
    /// Does nothing.
    public func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {}
}

/// Receives a data task's body as it arrives: the counterpart of `URLSessionDataDelegate`.
///
/// A data task made without a completion handler (``Session/dataTask(with:)``) hands its body
/// to this delegate, piece by piece, and keeps none of it. The engine stops reading while more
/// than 512 KiB wait on the delegate queue, so a slow delegate holds the server, not memory.
public protocol SessionDataDelegate: SessionTaskDelegate {
    /// The response head arrived: decide whether the body is loaded. No body byte is read
    /// until `completionHandler` is called (from any thread, now or later). The default calls
    /// the async form.
    func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void)

    /// The response head arrived: decide whether the body is loaded (async form). The default
    /// allows it.
    func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse) async -> ResponseDisposition

    /// Body bytes arrived (decoded when the session decodes content), in order.
    func session(_ session: Session, dataTask: DataTask, didReceive data: Data)

    /// The data task was turned into `downloadTask` (the response was answered with
    /// ``ResponseDisposition/becomeDownload``): the data task is over, without a completion
    /// call of its own, and the download task's events follow, ending with its
    /// ``SessionDownloadDelegate/session(_:downloadTask:didFinishDownloadingTo:)`` and
    /// ``SessionTaskDelegate/session(_:task:didCompleteWithError:)``.
    func session(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask)
}

extension SessionDataDelegate {
    /// Asks the async form.
    public func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse,
                        completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        Task { completionHandler(await self.session(session, dataTask: dataTask, didReceive: response)) }
    }

    /// Allows the response.
    public func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse) async -> ResponseDisposition {
        .allow
    }

    /// Does nothing.
    public func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {}

    /// Does nothing.
    public func session(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) {}
}

/// What a data task does with a response its data delegate was shown: the counterpart of
/// `URLSession.ResponseDisposition`.
public enum ResponseDisposition: Sendable, Equatable {
    /// Load the body.
    case allow
    /// Cancel the task: it completes with ``NetworkError/Code/cancelled``, no body byte read.
    case cancel
    /// Write the body to a temporary file instead: the data task ends and a ``DownloadTask``
    /// takes over its exchange, announced by
    /// ``SessionDataDelegate/session(_:dataTask:didBecome:)``; the delegate then receives the
    /// download's events (as a ``SessionDownloadDelegate``). The file is removed after them.
    case becomeDownload
}

/// Receives a download task's file: the counterpart of `URLSessionDownloadDelegate`.
public protocol SessionDownloadDelegate: SessionTaskDelegate {
    /// Body bytes were written to the file. Calls are coalesced: while one waits on the
    /// delegate queue, later writes only add to the totals it reports, so a slow delegate
    /// never holds a backlog.
    /// - Parameters:
    ///   - bytesWritten: Bytes written since the last call.
    ///   - totalBytesWritten: Bytes written so far.
    ///   - totalBytesExpectedToWrite: The body's announced length, if known.
    func session(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                 totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64?)

    /// The body is complete in a temporary file at `location`. Move or open it before
    /// returning: it is removed afterwards.
    func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL)

    /// A continued download (``Session/downloadTask(withResumeData:)``) got its answer: the
    /// file goes on after its first `fileOffset` bytes, or starts over when `fileOffset` is 0
    /// (the resource changed since the bytes on disk were loaded). The task's counts and the
    /// `didWriteData` totals include those bytes.
    /// - Parameters:
    ///   - fileOffset: The bytes on disk that are kept.
    ///   - expectedTotalBytes: The whole file's length, when the server said it.
    func session(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?)
}

extension SessionDownloadDelegate {
    /// Does nothing.
    public func session(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                        expectedTotalBytes: Int64?) {}

    /// Does nothing.
    public func session(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64?) {}
}

/// Receives session-wide events: the counterpart of `URLSessionDelegate`.
///
/// A session delegate that also conforms to ``SessionTaskDelegate`` (or its data and download
/// refinements) receives the events of every task that has no delegate of its own.
public protocol SessionDelegate: AnyObject, Sendable {
    /// The session was invalidated (``Session/invalidateAndCancel()`` or
    /// ``Session/finishTasksAndInvalidate()``): no task runs any more, and the session lets go
    /// of its delegate after this call. `error` is nil for an invalidation the caller asked for.
    func session(_ session: Session, didBecomeInvalidWithError error: NetworkError?)

    /// A session-wide challenge, about a new TLS connection, before any request byte:
    /// - ``AuthenticationMethod/serverTrust``, on every new connection: answer
    ///   `(.useCredential, Credential(trust:))` to accept the server's chain,
    ///   `.performDefaultHandling` to let the session's evaluators (or the default rules) judge
    ///   it, `.cancelAuthenticationChallenge` to refuse it (the request fails as cancelled).
    /// - ``AuthenticationMethod/clientCertificate``, when a server asks for a certificate and
    ///   the TLS configuration has none: answer `(.useCredential, Credential(identity:))` to
    ///   send one (chosen per host and port), `.performDefaultHandling` to send none,
    ///   `.cancelAuthenticationChallenge` to give the connection up.
    /// The default calls the async form.
    func session(_ session: Session, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void)

    /// A session-wide challenge (async form). The default answers `.performDefaultHandling`.
    func session(_ session: Session, didReceive challenge: AuthenticationChallenge) async -> (AuthChallengeDisposition, Credential?)
}

extension SessionDelegate {
    /// Does nothing.
    public func session(_ session: Session, didBecomeInvalidWithError error: NetworkError?) {}

    /// Asks the async form.
    public func session(_ session: Session, didReceive challenge: AuthenticationChallenge,
                        completionHandler: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void) {
        Task {
            let (disposition, credential) = await self.session(session, didReceive: challenge)
            completionHandler(disposition, credential)
        }
    }

    /// Performs the default handling.
    public func session(_ session: Session, didReceive challenge: AuthenticationChallenge) async -> (AuthChallengeDisposition, Credential?) {
        (.performDefaultHandling, nil)
    }
}
