import FerrySession
import FoundationEssentials

// AFURLSessionManager's block setters: one per session and task event. Blocks run on the
// session's delegate queue, for every task the manager made; nil removes a block.

extension SessionManager {
    /// The session was invalidated (AFNetworking's `setSessionDidBecomeInvalidBlock:`).
    public func setSessionDidBecomeInvalid(_ block: (@Sendable (Session, NetworkError?) -> Void)?) {
        hooks.update { $0.sessionDidBecomeInvalid = block }
    }

    /// A session-wide challenge (server trust, client certificate): the block's answer replaces the default, which judges server trust by ``securityPolicy`` (`setSessionDidReceiveAuthenticationChallengeBlock:`).
    public func setSessionDidReceiveAuthenticationChallenge(_ block: (@Sendable (Session, AuthenticationChallenge) -> (AuthChallengeDisposition, Credential?))?) {
        hooks.update { $0.sessionDidReceiveChallenge = block }
    }

    /// A redirect is about to be followed: return the request to send, or nil to take the 3xx as the response (`setTaskWillPerformHTTPRedirectionBlock:`).
    public func setTaskWillPerformHTTPRedirection(_ block: (@Sendable (Session, SessionTask, NetworkResponse, NetworkRequest) -> NetworkRequest?)?) {
        hooks.update { $0.taskWillPerformHTTPRedirection = block }
    }

    /// A server asked a task for credentials (a 401): the block's answer replaces the default handling (AFNetworking 4's `setAuthenticationChallengeHandler:`).
    public func setTaskDidReceiveAuthenticationChallenge(_ block: (@Sendable (Session, SessionTask, AuthenticationChallenge) -> (AuthChallengeDisposition, Credential?))?) {
        hooks.update { $0.taskDidReceiveChallenge = block }
    }

    /// A request with a stream body must be sent again (a 307, an answer to a challenge): return a new body with the same bytes (`setTaskNeedNewBodyStreamBlock:`).
    public func setTaskNeedNewBodyStream(_ block: (@Sendable (Session, SessionTask) -> RequestBody?)?) {
        hooks.update { $0.taskNeedNewBodyStream = block }
    }

    /// Body bytes were sent: bytes this time, in all, and expected (`setTaskDidSendBodyDataBlock:`).
    public func setTaskDidSendBodyData(_ block: (@Sendable (Session, SessionTask, Int64, Int64, Int64?) -> Void)?) {
        hooks.update { $0.taskDidSendBodyData = block }
    }

    /// A task's metrics, as it completes (`setTaskDidFinishCollectingMetricsBlock:`).
    public func setTaskDidFinishCollectingMetrics(_ block: (@Sendable (Session, SessionTask, TaskMetrics) -> Void)?) {
        hooks.update { $0.taskDidFinishCollectingMetrics = block }
    }

    /// A task completed, before its response is serialized (`setTaskDidCompleteBlock:`).
    public func setTaskDidComplete(_ block: (@Sendable (Session, SessionTask, NetworkError?) -> Void)?) {
        hooks.update { $0.taskDidComplete = block }
    }

    /// A data task's response head arrived: allow it, cancel the task, or make it a download (`setDataTaskDidReceiveResponseBlock:`).
    public func setDataTaskDidReceiveResponse(_ block: (@Sendable (Session, DataTask, NetworkResponse) -> ResponseDisposition)?) {
        hooks.update { $0.dataTaskDidReceiveResponse = block }
    }

    /// A data task became a download task (`setDataTaskDidBecomeDownloadTaskBlock:`).
    public func setDataTaskDidBecomeDownloadTask(_ block: (@Sendable (Session, DataTask, DownloadTask) -> Void)?) {
        hooks.update { $0.dataTaskDidBecomeDownloadTask = block }
    }

    /// Body bytes arrived for a data task (`setDataTaskDidReceiveDataBlock:`).
    public func setDataTaskDidReceiveData(_ block: (@Sendable (Session, DataTask, Data) -> Void)?) {
        hooks.update { $0.dataTaskDidReceiveData = block }
    }

    /// A download is complete in a temporary file: return where to move it (replacing a file
    /// there), or nil to leave the choice to the task's own destination, if any, else to let
    /// the file be removed. As AFNetworking's, this block is asked first: a URL from it
    /// overrides the task's destination (`setDownloadTaskDidFinishDownloadingBlock:`).
    public func setDownloadTaskDidFinishDownloading(_ block: (@Sendable (Session, DownloadTask, URL) -> URL?)?) {
        hooks.update { $0.downloadTaskDidFinishDownloading = block }
    }

    /// Body bytes were written to a download's file: bytes this time, in all, and expected (`setDownloadTaskDidWriteDataBlock:`).
    public func setDownloadTaskDidWriteData(_ block: (@Sendable (Session, DownloadTask, Int64, Int64, Int64?) -> Void)?) {
        hooks.update { $0.downloadTaskDidWriteData = block }
    }

    /// A continued download got its answer: the file goes on after this many bytes (0: it
    /// starts over), out of the expected total (`setDownloadTaskDidResumeBlock:`).
    public func setDownloadTaskDidResume(_ block: (@Sendable (Session, DownloadTask, Int64, Int64?) -> Void)?) {
        hooks.update { $0.downloadTaskDidResume = block }
    }
}
