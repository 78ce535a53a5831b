import FerrySession
import FoundationEssentials

/// What a ``SessionManager`` announces (AFNetworking's notifications): posted to
/// `NotificationCenter` when the `ManagerNotifications` trait links Foundation, else dropped.
enum SessionManagerEvent: Sendable {
    /// A task went from suspended to running.
    case taskDidResume(SessionTask)
    /// A task went from running to suspended.
    case taskDidSuspend(SessionTask)
    /// A task completed and its completion handler ran.
    case taskDidComplete(TaskCompletion)
    /// The manager's session was invalidated.
    case sessionDidInvalidate(Session, NetworkError?)
    /// A download was moved to its destination.
    case downloadDidMoveFile(DownloadTask, URL)
    /// A download could not be moved to its destination.
    case downloadDidFailToMoveFile(DownloadTask, NetworkError)

    /// What a completion notification carries.
    struct TaskCompletion: Sendable {
        let task: SessionTask
        let serializer: any ResponseSerializing
        let serializedResponse: (any Sendable)?
        let data: Data?
        let fileURL: URL?
        let error: NetworkError?
        let metrics: TaskMetrics?
    }
}
