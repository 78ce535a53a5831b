/// Runs work items concurrently in a task group, never more than a limit at once.
///
/// `-Z --parallel-max N`: curl keeps at most N transfers in flight and starts the next one as
/// soon as one finishes. Generic over the work so the bound is tested without a network.
enum BoundedTaskGroup {
    /// Runs `work` for every item, at most `limit` at a time, and hands each result to
    /// `onResult` on the calling task, in completion order.
    static func run<Item: Sendable, Output: Sendable>(
        _ items: [Item],
        limit: Int,
        work: @escaping @Sendable (Item) async -> Output,
        onResult: (Output) -> Void
    ) async {
        await withTaskGroup(of: Output.self) { group in
            var started = 0
            for item in items.prefix(max(1, limit)) {
                group.addTask { await work(item) }
                started += 1
            }
            for await output in group {
                // Start the next item before handling this result, so output work never
                // delays the transfers still waiting.
                if started < items.count {
                    let item = items[started]
                    group.addTask { await work(item) }
                    started += 1
                }
                onResult(output)
            }
        }
    }
}
