// Delegates the task tests share: recorders, checkers and deciders.
import FerryBase
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

/// A session delegate that records invalidation and, as the session-wide task delegate,
/// every task event.
final class SessionEvents: SessionDelegate, SessionDataDelegate {
    let invalidated = AsyncEvent()
    let tasks: RecordingDelegate

    init(queue: DispatchQueue) { tasks = RecordingDelegate(queue: queue) }

    func session(_ session: Session, didBecomeInvalidWithError error: NetworkError?) { invalidated.set() }
    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        tasks.session(session, dataTask: dataTask, didReceive: data)
    }
    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        tasks.session(session, task: task, didCompleteWithError: error)
    }
}

/// Checks a body against ``TestBytes`` as it arrives, keeping none of it.
final class PatternChecker: SessionDataDelegate {
    let completed = AsyncEvent()
    /// Set when the task was suspended at each of the marks given at creation.
    let suspensions: [AsyncEvent]
    private let marks: [Int]
    private let state = Locked<(count: Int, mismatch: Int?, error: NetworkError?)>((0, nil, nil))

    /// - Parameter marks: Byte counts, rising: the piece that crosses each suspends the task.
    init(suspendingAt marks: [Int] = []) {
        self.marks = marks
        suspensions = marks.map { _ in AsyncEvent() }
    }
    /// The pattern from offset 0 over one period plus the largest piece a delegate gets: any
    /// piece compares against a slice of it with one memcmp (a byte loop over 100 MiB in a
    /// debug build would hold a core for seconds and slow every test running beside it).
    private static let reference = TestBytes.pattern(count: TestBytes.period + 2 << 20)

    var count: Int { state.withLock { $0.count } }
    var mismatch: Int? { state.withLock { $0.mismatch } }
    var error: NetworkError? { state.withLock { $0.error } }

    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        let (before, after) = state.withLock { state -> (Int, Int) in
            if state.mismatch == nil, !Self.matches(data, at: state.count) { state.mismatch = state.count }
            state.count += data.count
            return (state.count - data.count, state.count)
        }
        for (index, mark) in marks.enumerated() where before < mark && after >= mark {
            dataTask.suspend()
            suspensions[index].set()
        }
    }

    private static func matches(_ data: Data, at offset: Int) -> Bool {
        let start = offset % TestBytes.period
        guard !data.isEmpty else { return true }
        guard data.count <= reference.count - start else {
            // Larger than any piece the engine hands over; compared the slow way.
            return data.elementsEqual(TestBytes.pattern(from: offset, count: data.count))
        }
        return data.withUnsafeBytes { piece in
            reference.withUnsafeBytes { pattern in
                memcmp(piece.baseAddress!, pattern.baseAddress! + start, piece.count) == 0
            }
        }
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        state.withLock { $0.error = error }
        completed.set()
    }
}

/// Cancels its data task from the first piece of body it receives.
final class CancellingDelegate: SessionDataDelegate {
    let completed = AsyncEvent()
    private let outcome = Locked<NetworkError?>(nil)

    var error: NetworkError? { outcome.withLock { $0 } }

    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        dataTask.cancel()
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        outcome.withLock { $0 = error }
        completed.set()
    }
}

/// Decides about the response with the completion-handler form, later and from another queue.
final class DecidingDelegate: SessionDataDelegate {
    let completed = AsyncEvent()
    private let disposition: ResponseDisposition
    private let state = Locked<(asked: NetworkResponse?, before: Int64?, received: Int, error: NetworkError?)>((nil, nil, 0, nil))

    init(_ disposition: ResponseDisposition) { self.disposition = disposition }

    var askedWith: NetworkResponse? { state.withLock { $0.asked } }
    var bytesBeforeDecision: Int64? { state.withLock { $0.before } }
    var received: Int { state.withLock { $0.received } }
    var error: NetworkError? { state.withLock { $0.error } }

    func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        state.withLock { $0.asked = response }
        let disposition = self.disposition
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in
            // The engine paused at the head: nothing of the body has arrived even now.
            state.withLock { $0.before = dataTask.countOfBytesReceived }
            completionHandler(disposition)
        }
    }

    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        state.withLock { $0.received += data.count }
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        state.withLock { $0.error = error }
        completed.set()
    }
}

/// Decides with the async form only: cancels.
final class AsyncDecidingDelegate: SessionDataDelegate {
    let completed = AsyncEvent()
    private let state = Locked<(asked: Bool, error: NetworkError?)>((false, nil))

    var asked: Bool { state.withLock { $0.asked } }
    var error: NetworkError? { state.withLock { $0.error } }

    func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse) async -> ResponseDisposition {
        state.withLock { $0.asked = true }
        return .cancel
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        state.withLock { $0.error = error }
        completed.set()
    }
}

/// Holds its data task at the response until ``allow()``.
final class HoldingDelegate: SessionDataDelegate {
    let asked = AsyncEvent()
    private let handler = Locked<(@Sendable (ResponseDisposition) -> Void)?>(nil)
    private let became = Locked<DownloadTask?>(nil)

    /// The download task the data task became, once it did.
    var download: DownloadTask? { became.withLock { $0 } }

    func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        handler.withLock { $0 = completionHandler }
        asked.set()
    }

    func session(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) {
        became.withLock { $0 = downloadTask }
    }

    func allow() {
        answer(.allow)
    }

    func answer(_ disposition: ResponseDisposition) {
        handler.withLock { $0 }?(disposition)
    }
}
