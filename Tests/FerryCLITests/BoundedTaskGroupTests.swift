import FerryBase
import Synchronization
import Testing
@testable import ferry

/// -Z keeps at most --parallel-max transfers in flight and runs every one.
struct BoundedTaskGroupTests {
    /// Counts work items in flight and remembers the most seen at once.
    final class Gauge: Sendable {
        private let state = Locked((current: 0, peak: 0))
        func enter() { state.withLock { $0.current += 1; $0.peak = max($0.peak, $0.current) } }
        func leave() { state.withLock { $0.current -= 1 } }
        var peak: Int { state.withLock { $0.peak } }
    }

    @Test(arguments: [1, 3, 50])
    func neverMoreThanTheLimit(_ limit: Int) async {
        let gauge = Gauge()
        var results: [Int] = []
        await BoundedTaskGroup.run(Array(0..<20), limit: limit) { item in
            gauge.enter()
            // Yield a few times so items overlap when the limit allows it.
            for _ in 0..<5 { await Task.yield() }
            gauge.leave()
            return item
        } onResult: { results.append($0) }
        #expect(results.sorted() == Array(0..<20))
        #expect(gauge.peak <= limit)
        #expect(gauge.peak >= 1)
    }

    @Test func limitOneIsInOrder() async {
        var results: [Int] = []
        await BoundedTaskGroup.run(Array(0..<10), limit: 1) { $0 } onResult: { results.append($0) }
        #expect(results == Array(0..<10))
    }

    @Test func nothingToDo() async {
        var called = false
        await BoundedTaskGroup.run([Int](), limit: 4) { $0 } onResult: { _ in called = true }
        #expect(!called)
    }
}
