/// Runs Swift tasks on an ``EventLoop``'s thread: a `TaskExecutor` for code that awaits work
/// done on that loop.
///
/// A task that prefers this executor (`withTaskExecutorPreference`) and is resumed by a
/// callback on the loop's thread is queued there without waking anything, and runs once the
/// loop is done with the current events; work it hands back to the loop needs no wake-up
/// either. A request and its answer then cost no thread switch at all. The task's code runs on
/// the loop's thread meanwhile, so it must not block: while it runs, the loop serves nothing.
///
/// Once the loop has stopped, jobs go to the global concurrent executor instead: a task that
/// still prefers this executor is never stranded.
package final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: EventLoop

    package init(_ loop: EventLoop) {
        self.loop = loop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let accepted = loop.execute { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}
