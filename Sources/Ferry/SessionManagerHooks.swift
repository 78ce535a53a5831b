import FerryBase
import FerrySession
import FoundationEssentials
import Synchronization

/// The blocks a ``SessionManager``'s user set for session and task events (AFURLSessionManager's
/// block setters), and the security policy its session's trust checks read.
///
/// Shared by the manager, its session delegate and every task delegate it made: none of them
/// holds the manager, so a manager can go away while its tasks finish.
final class SessionManagerHooks: Sendable {
    struct Blocks: Sendable {
        var sessionDidBecomeInvalid: (@Sendable (Session, NetworkError?) -> Void)?
        var sessionDidReceiveChallenge:
            (@Sendable (Session, AuthenticationChallenge) -> (AuthChallengeDisposition, Credential?))?
        var taskWillPerformHTTPRedirection:
            (@Sendable (Session, SessionTask, NetworkResponse, NetworkRequest) -> NetworkRequest?)?
        var taskDidReceiveChallenge:
            (@Sendable (Session, SessionTask, AuthenticationChallenge) -> (AuthChallengeDisposition, Credential?))?
        var taskNeedNewBodyStream: (@Sendable (Session, SessionTask) -> RequestBody?)?
        var taskDidSendBodyData: (@Sendable (Session, SessionTask, Int64, Int64, Int64?) -> Void)?
        var taskDidFinishCollectingMetrics: (@Sendable (Session, SessionTask, TaskMetrics) -> Void)?
        var taskDidComplete: (@Sendable (Session, SessionTask, NetworkError?) -> Void)?
        var dataTaskDidReceiveResponse: (@Sendable (Session, DataTask, NetworkResponse) -> ResponseDisposition)?
        var dataTaskDidBecomeDownloadTask: (@Sendable (Session, DataTask, DownloadTask) -> Void)?
        var dataTaskDidReceiveData: (@Sendable (Session, DataTask, Data) -> Void)?
        var downloadTaskDidFinishDownloading: (@Sendable (Session, DownloadTask, URL) -> URL?)?
        var downloadTaskDidWriteData: (@Sendable (Session, DownloadTask, Int64, Int64, Int64?) -> Void)?
        var downloadTaskDidResume: (@Sendable (Session, DownloadTask, Int64, Int64?) -> Void)?
    }

    private let state: Locked<(blocks: Blocks, policy: SecurityPolicy)>
    /// Posts the manager's notifications; nil without the `ManagerNotifications` trait.
    let notify: (@Sendable (SessionManagerEvent) -> Void)?

    init(policy: SecurityPolicy) {
        state = Locked((Blocks(), policy))
        #if ManagerNotifications
        notify = SessionManager.postNotification
        #else
        notify = nil
        #endif
    }

    /// One of the blocks as it is now (`hooks.block { $0.taskDidComplete }`): reads that
    /// block alone, not a copy of all of them, on every event.
    func block<Block>(_ read: (borrowing Blocks) -> Block) -> Block {
        state.withLock { read($0.blocks) }
    }

    /// Changes the blocks.
    func update(_ change: (inout Blocks) -> Void) {
        state.withLock { change(&$0.blocks) }
    }

    /// Whether a block wants a data task's body or response as they arrive (so the task must
    /// hand its body to the manager's delegate piece by piece).
    var observesDataEvents: Bool {
        state.withLock { state in
            state.blocks.dataTaskDidReceiveResponse != nil || state.blocks.dataTaskDidReceiveData != nil
                || state.blocks.dataTaskDidBecomeDownloadTask != nil
        }
    }

    /// Whether a block wants any task event (so a task needs the manager's delegate).
    var observesTaskEvents: Bool {
        state.withLock { state in
            let blocks = state.blocks
            return blocks.taskWillPerformHTTPRedirection != nil || blocks.taskDidReceiveChallenge != nil
                || blocks.taskNeedNewBodyStream != nil || blocks.taskDidSendBodyData != nil
                || blocks.taskDidFinishCollectingMetrics != nil || blocks.taskDidComplete != nil
        }
    }

    /// The policy new TLS connections are judged by.
    var policy: SecurityPolicy {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }
}

/// The trust evaluator of a manager's session: the manager's current ``SecurityPolicy``, read
/// on every new connection, so that setting ``SessionManager/securityPolicy`` takes effect for
/// the next connection as in AFNetworking.
struct ManagerTrustEvaluator: ServerTrustEvaluating {
    let hooks: SessionManagerHooks

    func evaluate(_ trust: ServerTrust, forDomain domain: String) throws(ServerTrustError) {
        try hooks.policy.evaluate(trust, forDomain: domain)
    }
}

/// The manager's session delegate: session-wide events go to the blocks.
final class SessionManagerSessionDelegate: SessionDelegate {
    let hooks: SessionManagerHooks

    init(hooks: SessionManagerHooks) {
        self.hooks = hooks
    }

    func session(_ session: Session, didBecomeInvalidWithError error: NetworkError?) {
        hooks.block { $0.sessionDidBecomeInvalid }?(session, error)
        hooks.notify?(.sessionDidInvalidate(session, error))
    }

    func session(_ session: Session, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void) {
        // Without a block the session's evaluator (the manager's policy) judges server trust.
        guard let block = hooks.block({ $0.sessionDidReceiveChallenge }) else { return completionHandler(.performDefaultHandling, nil) }
        let (disposition, credential) = block(session, challenge)
        completionHandler(disposition, credential)
    }
}
