import FoundationEssentials

/// A task that loads a response body into memory or hands it to a delegate: the counterpart of
/// `URLSessionDataTask`.
///
/// Made with a completion handler (``Session/dataTask(with:completionHandler:)``), it collects
/// the body and calls the handler; made without one (``Session/dataTask(with:)``), it hands the
/// body to its ``SessionDataDelegate`` as it arrives and keeps none of it.
public class DataTask: SessionTask, @unchecked Sendable {}

/// A data task that sends a body: memory, a file (streamed, never loaded whole) or an async
/// stream. The counterpart of `URLSessionUploadTask`; its ``SessionTask/progress`` counts the
/// body bytes sent.
public final class UploadTask: DataTask, @unchecked Sendable {}

/// A task that writes the response body to a file as it arrives, never holding it in memory:
/// the counterpart of `URLSessionDownloadTask`.
///
/// The file is temporary: the completion handler (or
/// ``SessionDownloadDelegate/session(_:downloadTask:didFinishDownloadingTo:)``) gets its URL and
/// must move or open it before returning; it is removed afterwards. A failed download removes
/// its partial file.
public final class DownloadTask: SessionTask, @unchecked Sendable {}
