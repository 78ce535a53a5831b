#if FoundationProgress
// The task's progress as a Foundation.Progress, as URLSessionTask's `progress` (and what
// AFURLSessionManager's uploadProgress(for:) / downloadProgress(for:) hand out). Behind the
// default `FoundationProgress` trait: the only FerrySession file that needs the full Foundation,
// so a package that turns the trait off links none (ARCHITECTURE.md, "Foundation").
import FerryBase
import Foundation
import Synchronization

extension SessionTask {
    /// The task's progress as a `Foundation.Progress`, URLSessionTask's `progress`: body bytes
    /// received against those expected (for an upload task, sent against the body's length);
    /// its total is -1 (indeterminate) while the length is unknown, and it is finished once the
    /// task completed. Cancelling it cancels the task; pausing it suspends the task until it is
    /// resumed (Foundation runs those handlers a moment later, on a queue of its own; the task
    /// follows `isPaused`, so a second pause adds no second suspension).
    /// Made the first time it is asked for, then kept up to date as bytes
    /// move (a task nobody asks costs nothing). Needs the `FoundationProgress` trait, on by
    /// default; ``progress`` and ``progressUpdates`` need no Foundation.
    public var foundationProgress: Progress {
        let uploads = kind == .upload
        return core.withLock { core -> Progress in
            if let made = core.foundationProgress as? Progress { return made }
            let progress = Progress(totalUnitCount: -1)
            progress.isCancellable = true
            progress.isPausable = true
            progress.cancellationHandler = { [weak self] in self?.cancel() }
            progress.pausingHandler = { [weak self] in self?.followProgressPause() }
            progress.resumingHandler = { [weak self] in self?.followProgressPause() }
            let update: @Sendable (TaskProgress) -> Void = { value in Self.update(progress, to: value) }
            update(core.progress(uploads: uploads))
            core.foundationProgress = progress
            // A task that completed already has nothing more to report.
            if core.machine.publicState != .completed { core.progressHandler = update }
            return progress
        }
    }

    /// Suspends or resumes the task as its progress's `isPaused` says. Foundation runs the
    /// pausing and resuming handlers later, on a concurrent queue, in no set order, and once per
    /// call (`pause()` twice runs the handler twice): the task follows the flag, read under its
    /// lock, not the calls, so the progress holds one suspension at most and its last word wins.
    private func followProgressPause() {
        changeSuspension { core in
            guard let paused = (core.foundationProgress as? Progress)?.isPaused, paused != core.pausedByProgress else { return nil }
            core.pausedByProgress = paused
            return paused
        }
    }

    /// Sets `progress` to `value`; a finished task's progress is finished (its total becomes
    /// what was done when the length was never known).
    private static func update(_ progress: Progress, to value: TaskProgress) {
        if value.isFinished {
            let total = max(value.totalUnitCount ?? value.completedUnitCount, value.completedUnitCount)
            progress.totalUnitCount = total
            progress.completedUnitCount = total
        } else {
            progress.totalUnitCount = value.totalUnitCount ?? -1
            progress.completedUnitCount = value.completedUnitCount
        }
    }
}
#endif
