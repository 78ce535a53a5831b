/// The life of one ``SessionTask`` as a pure value: what the caller asked (resume, suspend,
/// cancel), what the engine reported (body arrived, exchange ended) and what the output said
/// (full, drained) go in as events; what the task must do comes out as an action. No I/O, no
/// clocks, no locks: ``SessionTask`` holds it under its lock and runs the actions outside it.
///
/// Suspension is counted, as URLSession's (swift-corelibs-foundation keeps a suspend count
/// that starts at 1): a task is created suspended, every `suspend()` needs a `resume()`, and a
/// surplus `resume()` is ignored. A suspended running task stops reading: the next body bytes
/// the engine delivers are answered with a pause, so the socket's backpressure holds the peer;
/// reading resumes when neither the caller (suspended) nor the output (full) holds it. A
/// response head that arrives while the task is suspended is held, unread past, until
/// `resume()` hands it back: a suspended task hears of no response, not even one without a
/// body (whose end the engine reports only once reading resumes).
struct TaskStateMachine: Sendable {
    /// A task whose exchange is in flight.
    struct Running: Equatable, Sendable {
        /// How many exchanges this task has started (1 for the first; redirects and
        /// authentication retries start more).
        var exchanges: Int
        /// `suspend()` calls not yet balanced by `resume()`.
        var suspendCount = 0
        /// The engine was told to pause reading and has not been resumed.
        var readingPaused = false
        /// The output asked for the pause and has not drained since.
        var outputFull = false
        /// The delegate is deciding about the response head; no body byte is read meanwhile.
        var awaitingDecision = false
        /// Where a response head that arrived while suspended is.
        var heldHead = HeldHead.none
    }

    /// A response head that arrived while the task was suspended.
    enum HeldHead: Equatable, Sendable {
        /// None is held.
        case none
        /// It waits for `resume()`.
        case waiting
        /// `resume()` handed it back and the task has not taken it yet: reading stays paused
        /// (a quick suspend and resume meanwhile must not let body bytes pass it).
        case handedBack
    }

    enum State: Equatable, Sendable {
        /// Made, never resumed (URLSession's "suspended" before the first `resume()`).
        case created(suspendCount: Int)
        /// An exchange runs (possibly suspended).
        case running(Running)
        /// `cancel()` was called; the running exchange is being stopped.
        case canceling
        /// The outcome is decided; nothing more happens.
        case completed
    }

    enum Action: Equatable, Sendable {
        /// Nothing to do.
        case none
        /// Start the task's first exchange.
        case startExchange
        /// Tell the engine to read again.
        case resumeReading
        /// Handle the response head held while suspended (on the exchange's loop); reading
        /// stays paused until it is handled.
        case deliverHeldHead
        /// Stop the running exchange; it will report its end as cancelled.
        case cancelExchange
        /// The task never ran: complete it now as cancelled.
        case completeCancelled
        /// The exchange ended: deliver the task's outcome.
        case complete
    }

    /// What the engine should do after body bytes were handed to the output.
    enum Demand: Equatable, Sendable {
        /// Keep reading.
        case more
        /// Stop reading until ``Action/resumeReading``.
        case pause
    }

    private(set) var state = State.created(suspendCount: 1)

    /// The state as ``SessionTask/state`` reports it.
    var publicState: SessionTask.State {
        switch state {
        case .created: return .suspended
        case .running(let running): return running.suspendCount > 0 ? .suspended : .running
        case .canceling: return .canceling
        case .completed: return .completed
        }
    }

    /// The caller resumed the task.
    mutating func resume() -> Action {
        switch state {
        case .created(let count):
            guard count <= 1 else {
                state = .created(suspendCount: count - 1)
                return .none
            }
            state = .running(Running(exchanges: 1))
            return .startExchange
        case .running(var running):
            guard running.suspendCount > 0 else { return .none }
            running.suspendCount -= 1
            if running.suspendCount == 0 && running.heldHead == .waiting {
                running.heldHead = .handedBack
                state = .running(running)
                return .deliverHeldHead
            }
            let action = Self.resumeIfFree(&running)
            state = .running(running)
            return action
        case .canceling, .completed:
            return .none
        }
    }

    /// The caller suspended the task. Reading stops at the next response head or body bytes.
    mutating func suspend() -> Action {
        switch state {
        case .created(let count):
            state = .created(suspendCount: count + 1)
        case .running(var running):
            running.suspendCount += 1
            state = .running(running)
        case .canceling, .completed:
            break
        }
        return .none
    }

    /// The caller cancelled the task.
    mutating func cancel() -> Action {
        switch state {
        case .created:
            state = .completed
            return .completeCancelled
        case .running:
            state = .canceling
            return .cancelExchange
        case .canceling, .completed:
            return .none
        }
    }

    /// The response head arrived, before the task looked at it. A suspended task holds it:
    /// returns false, and reading pauses until ``resume()`` answers ``Action/deliverHeldHead``.
    /// A head handed back is taken by the same call (and held again if the task was
    /// suspended once more meanwhile).
    mutating func headArrived() -> Bool {
        // Most heads: a running task neither suspended nor handed a head back.
        guard case .running(var running) = state, running.suspendCount > 0 || running.heldHead != .none else { return true }
        let holds = running.suspendCount > 0
        running.heldHead = holds ? .waiting : .none
        if holds { running.readingPaused = true }
        state = .running(running)
        return !holds
    }

    /// The task looked at the response head. When the delegate must decide about it first
    /// (`needsDecision`), reading pauses before the first body byte.
    mutating func headReceived(needsDecision: Bool) -> Demand {
        switch state {
        case .running(var running):
            guard needsDecision else { return .more }
            running.awaitingDecision = true
            running.readingPaused = true
            state = .running(running)
            return .pause
        case .created, .canceling, .completed:
            return .more
        }
    }

    /// The response may be read: the delegate allowed it, or a held head was handled without
    /// a decision.
    mutating func responseAllowed() -> Action {
        switch state {
        case .running(var running):
            running.awaitingDecision = false
            let action = Self.resumeIfFree(&running)
            state = .running(running)
            return action
        case .created, .canceling, .completed:
            return .none
        }
    }

    /// The exchange ended with a follow-up (a redirect, an authentication retry): the next
    /// exchange starts (a task cancelled meanwhile completes as cancelled instead). Suspension
    /// carries over.
    mutating func nextExchange() -> Action {
        switch state {
        case .running(let running):
            state = .running(Running(exchanges: running.exchanges + 1, suspendCount: running.suspendCount))
            return .startExchange
        case .canceling:
            state = .completed
            return .completeCancelled
        case .created, .completed:
            return .none
        }
    }

    /// The data delegate turned the response into a download: this task ends here (its
    /// exchange goes on for the download task that takes it over). Returns false when the
    /// task is no longer waiting for that decision (cancelled, or its exchange ended).
    mutating func becameDownload() -> Bool {
        guard case .running(let running) = state, running.awaitingDecision else { return false }
        state = .completed
        return true
    }

    /// A new task takes over a running exchange whose reading is paused (a data task's
    /// exchange, turned into a download): it runs from here, as if resumed.
    mutating func adoptExchange() -> Action {
        guard case .created = state else { return .none }
        var running = Running(exchanges: 1)
        running.readingPaused = true
        let action = Self.resumeIfFree(&running)
        state = .running(running)
        return action
    }

    /// Body bytes were handed to the output, which says whether it wants more.
    mutating func bodyDelivered(outputWantsMore: Bool) -> Demand {
        switch state {
        case .running(var running):
            if !outputWantsMore { running.outputFull = true }
            guard running.outputFull || running.suspendCount > 0 || running.awaitingDecision else { return .more }
            running.readingPaused = true
            state = .running(running)
            return .pause
        case .created, .canceling, .completed:
            // Bytes after a cancel: the exchange is being stopped, whatever is answered.
            return .more
        }
    }

    /// The output, full before, has room again.
    mutating func outputDrained() -> Action {
        switch state {
        case .running(var running):
            running.outputFull = false
            let action = Self.resumeIfFree(&running)
            state = .running(running)
            return action
        case .created, .canceling, .completed:
            return .none
        }
    }

    /// The running exchange ended, successfully or not (a cancelled one reports its end too).
    mutating func exchangeEnded() -> Action {
        switch state {
        case .running, .canceling:
            state = .completed
            return .complete
        case .created, .completed:
            // An exchange cannot end before it started, nor twice (the engine reports one end).
            return .none
        }
    }

    private static func resumeIfFree(_ running: inout Running) -> Action {
        guard running.readingPaused, running.suspendCount == 0, !running.outputFull, !running.awaitingDecision,
              running.heldHead == .none else { return .none }
        running.readingPaused = false
        return .resumeReading
    }
}
