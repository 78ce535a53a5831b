/// Runs work items concurrently in a task group, never more than a limit at once.
///
/// `-Z --parallel-max N`: curl keeps at most N transfers in flight and starts the next one as
/// soon as one finishes. Generic over the work so the bound is tested without a network.
enum BoundedTaskGroup {
    /// Runs `work` for every item, at most `limit` at a time, and hands each result to
    /// `onResult` on the calling task, in completion order.
    static func run<Items: RandomAccessCollection, Output: Sendable>(
        _ items: Items,
        limit: Int,
        work: @escaping @Sendable (Items.Element) async -> Output,
        onResult: (Output) -> Void
    ) async where Items.Element: Sendable {
        await withTaskGroup(of: Output.self) { group in
            var next = items.startIndex
            for item in items.prefix(max(1, limit)) {
                group.addTask { await work(item) }
                items.formIndex(after: &next)
            }
            for await output in group {
                // Start the next item before handling this result, so output work never
                // delays the transfers still waiting.
                if next < items.endIndex {
                    let item = items[next]
                    group.addTask { await work(item) }
                    items.formIndex(after: &next)
                }
                onResult(output)
            }
        }
    }
}
