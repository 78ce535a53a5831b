#if ManagerNotifications
// The managers' NotificationCenter notifications need the full Foundation: behind the default
// `ManagerNotifications` trait, so a package that turns it off links no Foundation
// (ARCHITECTURE.md, "Foundation").
import FerrySession
import Foundation

extension SessionManager {
    /// Posted (object: the task) when a task of the manager starts running, on the thread that
    /// resumed it: AFNetworkingTaskDidResumeNotification.
    public static let taskDidResumeNotification = Notification.Name("FerrySessionManagerTaskDidResume")
    /// Posted (object: the task) when a task of the manager is suspended, on the thread that
    /// suspended it: AFNetworkingTaskDidSuspendNotification.
    public static let taskDidSuspendNotification = Notification.Name("FerrySessionManagerTaskDidSuspend")
    /// Posted (object: the task) on the completion queue after a task's completion handler,
    /// with the ``NotificationKey`` values that apply: AFNetworkingTaskDidCompleteNotification.
    public static let taskDidCompleteNotification = Notification.Name("FerrySessionManagerTaskDidComplete")
    /// Posted (object: the session) when the manager's session was invalidated:
    /// AFURLSessionDidInvalidateNotification.
    public static let sessionDidInvalidateNotification = Notification.Name("FerrySessionManagerSessionDidInvalidate")
    /// Posted (object: the task; ``NotificationKey/assetPath``: the file) after a download was
    /// moved to its destination: AFURLSessionDownloadTaskDidMoveFileNotification.
    public static let downloadTaskDidMoveFileNotification = Notification.Name("FerrySessionManagerDownloadTaskDidMoveFile")
    /// Posted (object: the task; ``NotificationKey/error``: why) when a download could not be
    /// moved: AFURLSessionDownloadTaskDidFailToMoveFileNotification.
    public static let downloadTaskDidFailToMoveFileNotification = Notification.Name("FerrySessionManagerDownloadTaskDidFailToMoveFile")

    /// The `userInfo` keys of the manager's notifications.
    public enum NotificationKey {
        /// The response serializer that ran (`any ResponseSerializing`).
        public static let responseSerializer = "FerryResponseSerializer"
        /// What the serializer made of the response, when it made something.
        public static let serializedResponse = "FerrySerializedResponse"
        /// The body as received (`Data`), when there was one.
        public static let responseData = "FerryResponseData"
        /// The ``NetworkError``, when the task or the serializer failed.
        public static let error = "FerryError"
        /// Where a download was moved (`URL`).
        public static let assetPath = "FerryAssetPath"
        /// The task's ``TaskMetrics``.
        public static let metrics = "FerryTaskMetrics"
    }

    /// Posts `event` to the default center.
    static let postNotification: @Sendable (SessionManagerEvent) -> Void = { event in
        let center = NotificationCenter.default
        switch event {
        case .taskDidResume(let task):
            center.post(name: taskDidResumeNotification, object: task)
        case .taskDidSuspend(let task):
            center.post(name: taskDidSuspendNotification, object: task)
        case .taskDidComplete(let completion):
            var info: [AnyHashable: Any] = [NotificationKey.responseSerializer: completion.serializer]
            if let value = completion.serializedResponse { info[NotificationKey.serializedResponse] = value }
            if let data = completion.data, !data.isEmpty { info[NotificationKey.responseData] = data }
            if let error = completion.error { info[NotificationKey.error] = error }
            if let fileURL = completion.fileURL { info[NotificationKey.assetPath] = fileURL }
            if let metrics = completion.metrics { info[NotificationKey.metrics] = metrics }
            center.post(name: taskDidCompleteNotification, object: completion.task, userInfo: info)
        case .sessionDidInvalidate(let session, let error):
            center.post(name: sessionDidInvalidateNotification, object: session,
                        userInfo: error.map { [NotificationKey.error: $0] })
        case .downloadDidMoveFile(let task, let url):
            center.post(name: downloadTaskDidMoveFileNotification, object: task, userInfo: [NotificationKey.assetPath: url])
        case .downloadDidFailToMoveFile(let task, let error):
            center.post(name: downloadTaskDidFailToMoveFileNotification, object: task, userInfo: [NotificationKey.error: error])
        }
    }
}
#endif
