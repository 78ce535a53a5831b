#if ReachabilityNotifications
// The only library code that needs the full Foundation, for NotificationCenter: behind the
// default `ReachabilityNotifications` trait, so a package that turns it off links no Foundation
// (ARCHITECTURE.md, "Foundation").
import Foundation

extension NetworkReachabilityManager {
    /// Posted (on the handler's queue, object: the manager) after the status changed:
    /// AFNetworkingReachabilityDidChangeNotification. Needs the `ReachabilityNotifications`
    /// trait, on by default.
    public static let statusDidChangeNotification = Notification.Name("FerryNetworkReachabilityStatusDidChange")
    /// The `userInfo` key of ``statusDidChangeNotification``: the new
    /// ``NetworkReachabilityStatus``.
    public static let statusUserInfoKey = "FerryNetworkReachabilityStatus"

    /// Posts ``statusDidChangeNotification`` for `status` on the calling queue.
    func postStatusDidChangeNotification(_ status: NetworkReachabilityStatus) {
        NotificationCenter.default.post(
            name: Self.statusDidChangeNotification, object: self, userInfo: [Self.statusUserInfoKey: status])
    }
}
#endif
