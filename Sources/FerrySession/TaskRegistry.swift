/// A session's running tasks and its invalidation, kept under the session's lock.
///
/// A task is registered when it first resumes and unregistered when it completes, so the
/// session keeps running tasks alive (and they keep it alive) while a dropped, never-resumed
/// task costs nothing.
struct TaskRegistry {
    private(set) var delegate: (any SessionDelegate)?
    /// The session delegate as a task delegate, for tasks without their own.
    private var sessionWideTaskDelegate: (any SessionTaskDelegate)?
    /// In no particular order. Each task knows its place (``SessionTask/registryIndex``), so
    /// adding and removing one hashes nothing: this runs twice per request.
    private(set) var running: [SessionTask] = []
    private var phase = Phase.valid

    private enum Phase {
        case valid
        /// `finishTasksAndInvalidate()`: no new task; the last running one ends the session.
        case finishing
        case invalidated
    }

    /// The delegate to tell of the invalidation, once (nil inside: there is none).
    struct Invalidated {
        var delegate: (any SessionDelegate)?
    }

    init(delegate: (any SessionDelegate)?) {
        self.delegate = delegate
        sessionWideTaskDelegate = delegate as? any SessionTaskDelegate
    }

    /// Registers a starting task. Returns the session-wide task delegate (wrapped: it may be
    /// nil), or nil when the session no longer takes tasks.
    /// - Parameter succeeding: The task takes over a running task's exchange: it is let in
    ///   while the running tasks finish too.
    mutating func register(_ task: SessionTask, succeeding: Bool) -> (any SessionTaskDelegate)?? {
        switch phase {
        case .valid: break
        case .finishing where succeeding: break
        case .finishing, .invalidated: return nil
        }
        task.registryIndex = running.count
        running.append(task)
        return .some(sessionWideTaskDelegate)
    }

    /// The session delegate as a task delegate, while the session takes tasks (for one
    /// cancelled before it started: once the session finishes, nothing of it may come after
    /// the invalidation).
    var taskDelegate: (any SessionTaskDelegate)? {
        guard case .valid = phase else { return nil }
        return sessionWideTaskDelegate
    }

    /// Forgets a completed task. Returns the invalidation to finish when it was the last task
    /// of a finishing session.
    mutating func unregister(_ task: SessionTask) -> Invalidated? {
        let index = task.registryIndex
        guard index >= 0, index < running.count, running[index] === task else { return nil }
        task.registryIndex = -1
        let last = running.removeLast()
        if index < running.count {
            running[index] = last
            last.registryIndex = index
        }
        guard case .finishing = phase, running.isEmpty else { return nil }
        return takeInvalidation()
    }


    /// Stops taking tasks. Returns the running tasks (to cancel) and, when the session can be
    /// shut down now, the invalidation to finish; nil when it was invalidated already or, when
    /// not `cancelling`, tasks still run.
    mutating func invalidate(cancelling: Bool) -> ([SessionTask], Invalidated?) {
        switch phase {
        case .invalidated:
            return ([], nil)
        case .valid, .finishing:
            guard cancelling || running.isEmpty else {
                phase = .finishing
                return ([], nil)
            }
            return (running, takeInvalidation())
        }
    }

    private mutating func takeInvalidation() -> Invalidated {
        phase = .invalidated
        let invalidated = Invalidated(delegate: delegate)
        delegate = nil
        sessionWideTaskDelegate = nil
        return invalidated
    }
}
