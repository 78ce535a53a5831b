import Ferry
import Synchronization

/// Watches one transfer through the session's delegate callbacks: prints `-v` lines as the
/// heads go out and come in, and keeps the metrics for `-w`.
///
/// Callbacks run on the session's serial delegate queue, in order, so the `>` and `<` lines
/// come out in the order they happened; the lock only guards the metrics, which the transfer
/// reads from its own task once the queue has caught up.
final class TransferObserver: SessionTaskDelegate {
    private let verbose: Bool
    private let console: Console
    private let collected = Mutex<TaskMetrics?>(nil)
    private let received = Mutex<NetworkResponse?>(nil)

    init(verbose: Bool, console: Console) {
        self.verbose = verbose
        self.console = console
    }

    /// The metrics, once the session delivered them.
    var metrics: TaskMetrics? { collected.withLock { $0 } }

    /// The last response head the session reported, even when the transfer then failed
    /// before handing it over (`--max-filesize` over an announced length): curl's
    /// `%{http_code}` still shows its status.
    var response: NetworkResponse? { received.withLock { $0 } }

    func session(_ session: Session, task: SessionTask, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo) {
        guard verbose else { return }
        let host = task.currentRequest.url.host ?? connection.remoteAddress
        console.writeError(HeadFormatter.connectionNote(host: host, connection) + HeadFormatter.verboseRequest(head))
    }

    func session(_ session: Session, task: SessionTask, didReceive response: NetworkResponse) {
        received.withLock { $0 = response }
        guard verbose else { return }
        console.writeError(HeadFormatter.verboseResponse(response))
    }

    func session(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        collected.withLock { $0 = metrics }
    }
}
