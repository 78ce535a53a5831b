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

extension SessionManagerHooks {
    /// Announces a completed task (after its handler ran, or before its async call returns).
    func announceCompletion<Serializer: ResponseSerializing>(_ outcome: ManagerTaskOutcome, serializer: Serializer,
                                                            result: Result<Serializer.Value, NetworkError>) {
        guard let notify else { return }
        var value: (any Sendable)?, failure: NetworkError?
        switch result {
        case .success(let serialized): value = responseObject(serialized)
        case .failure(let error): failure = error
        }
        // A notification names the caller's serializer, not the manager's type-erasing wrapper.
        let reported: any ResponseSerializing = (serializer as? ResponseObjectSerializer)?.base ?? serializer
        notify(.taskDidComplete(.init(task: outcome.task, serializer: reported, serializedResponse: value, data: outcome.data,
                                      fileURL: outcome.fileURL, error: failure, metrics: outcome.metrics)))
    }
}
