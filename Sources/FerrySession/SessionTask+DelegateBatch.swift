import FerryBase
import Dispatch
import FerryEngine
import Synchronization

// Delegate calls leave the loop in batches: what one pass of the exchange's loop learned (a
// read that brought the response head, the body and the end) reaches the delegate queue in
// one hop, not one hop per event.

extension SessionTask {
    /// Queues `call` for the delegate queue, after the calls queued before it. Called where
    /// ``engineSide`` may be touched: on the exchange's loop, or before or after the task ran
    /// an exchange.
    ///
    /// The first call of a pass asks the loop to send the batch once the pass is over (the
    /// connection has handled all a read brought); later ones join it. Without a running
    /// exchange (it has not been handed over yet, or the task completed) nothing more can join,
    /// and the batch goes at once.
    func toDelegate(_ call: @escaping @Sendable () -> Void) {
        delegateBatch.append(call)
        guard delegateBatch.count == 1 else { return }
        if let handle = core.withLock({ $0.handle }), handle.onLoop({ [self] in sendDelegateBatch() }) { return }
        sendDelegateBatch()
    }

    /// Sends the queued calls to the delegate queue, in one block.
    private func sendDelegateBatch() {
        guard !delegateBatch.isEmpty else { return }
        var calls: [@Sendable () -> Void] = []
        swap(&calls, &delegateBatch)
        if calls.count == 1 {
            session.delegateQueue.async(execute: calls[0])
        } else {
            session.delegateQueue.async { [calls] in
                for call in calls { call() }
            }
        }
    }
}
