import Testing

@testable import FerryIO

@Suite("Deadline and TimerQueue")
struct DeadlineTests {
    @Test("now() is monotonic and arithmetic round-trips")
    func arithmetic() async {
        let a = Deadline.now()
        let b = Deadline.now()
        #expect(a <= b)
        let later = a + .milliseconds(1_500)
        #expect(later - a == .milliseconds(1_500))
        #expect(a - later == .milliseconds(-1_500))
        #expect(later - .milliseconds(1_500) == a)
        #expect(Duration.seconds(2).saturatingNanoseconds == 2_000_000_000)
    }

    @Test("adding to distantFuture, or adding huge durations, saturates instead of trapping")
    func saturation() async {
        #expect(Deadline.distantFuture + .seconds(1) == .distantFuture)
        #expect(Deadline.now() + .seconds(Int64.max) == .distantFuture)
        #expect(Deadline.now() < .distantFuture)
        #expect(Deadline.distantFuture - Deadline(uptimeNanoseconds: .min) == .nanoseconds(Int64.max))
    }

    @Test("the timer heap stays ordered through heavy cancellation and compaction")
    func heapCompaction() async {
        var queue = TimerQueue()
        let base = Deadline(uptimeNanoseconds: 0)
        var ids: [TimerID] = []
        for index in 0..<1_000 {
            // Pseudo-random deadlines with many duplicates.
            ids.append(queue.schedule(at: base + .nanoseconds((index * 7_919) % 97)) {})
        }
        for (offset, id) in ids.enumerated() where offset % 10 != 0 { queue.cancel(id) }
        #expect(queue.count == 100)
        // Drain deadline by deadline: deadlines come out non-decreasing, every live timer once.
        var deadlines: [Deadline] = []
        var total = 0
        while let next = queue.nextDeadline() {
            let limit = queue.nextSequence
            var popped = 0
            while queue.popExpired(now: next, scheduledBefore: limit) != nil { popped += 1 }
            #expect(popped > 0)
            deadlines.append(next)
            total += popped
        }
        #expect(total == 100)
        #expect(deadlines == deadlines.sorted())
        #expect(queue.count == 0)
    }

    @Test("a stale identifier never cancels or fires the timer that reuses its slot")
    func slotReuse() async {
        var queue = TimerQueue()
        let base = Deadline(uptimeNanoseconds: 0)
        var fired: [String] = []
        let first = queue.schedule(at: base + .nanoseconds(10)) { fired.append("first") }
        queue.cancel(first)
        // Reuses the first timer's slot; the first's heap entry (deadline 10) is still there.
        let second = queue.schedule(at: base + .nanoseconds(20)) { fired.append("second") }
        #expect(second.rawValue > first.rawValue)
        #expect(second.slot == first.slot)
        queue.cancel(first)
        #expect(queue.count == 1)
        #expect(queue.nextDeadline() == base + .nanoseconds(20))
        while let body = queue.popExpired(now: base + .nanoseconds(30), scheduledBefore: queue.nextSequence) { body() }
        #expect(fired == ["second"])
        // Fired, then cancelled late, then a third timer takes the slot: the late cancel of
        // `second` must not touch it.
        let third = queue.schedule(at: base + .nanoseconds(40)) { fired.append("third") }
        #expect(third.slot == second.slot)
        queue.cancel(second)
        #expect(queue.count == 1)
        while let body = queue.popExpired(now: base + .nanoseconds(50), scheduledBefore: queue.nextSequence) { body() }
        #expect(fired == ["second", "third"])
        queue.cancel(third)
        #expect(queue.count == 0)
        #expect(queue.nextDeadline() == nil)
    }

    @Test("slots reused after a compaction fire only their own timers, each once, in order")
    func slotReuseThroughCompaction() async {
        var queue = TimerQueue()
        let base = Deadline(uptimeNanoseconds: 0)
        var fired: [Int] = []
        var ids: [Int: TimerID] = [:]
        for tag in 0..<200 {
            ids[tag] = queue.schedule(at: base + .nanoseconds((tag * 7_919) % 101)) { fired.append(tag) }
        }
        // 150 cancelled: dead entries outnumber live ones, so the heap is compacted on the way.
        for tag in 0..<200 where tag % 4 != 0 { queue.cancel(ids[tag]!) }
        #expect(queue.count == 50)
        // New timers take the freed slots; some of them are cancelled again.
        var slots = Set<Int>()
        for tag in 200..<300 {
            let id = queue.schedule(at: base + .nanoseconds((tag * 7_919) % 101)) { fired.append(tag) }
            ids[tag] = id
            slots.insert(id.slot)
        }
        #expect(slots.isSubset(of: Set((0..<200).map { ids[$0]!.slot })), "no new slot while freed ones wait")
        for tag in 200..<300 where tag % 2 == 0 { queue.cancel(ids[tag]!) }
        // Stale identifiers of the first round cancel nothing now.
        for tag in 0..<200 where tag % 4 != 0 { queue.cancel(ids[tag]!) }
        #expect(queue.count == 100)
        var deadlines: [Deadline] = []
        while let next = queue.nextDeadline() {
            let limit = queue.nextSequence
            while let body = queue.popExpired(now: next, scheduledBefore: limit) { body() }
            deadlines.append(next)
        }
        let expected = (0..<200).filter { $0 % 4 == 0 } + (200..<300).filter { $0 % 2 != 0 }
        #expect(fired.sorted() == expected)
        #expect(deadlines == deadlines.sorted())
        #expect(queue.count == 0)
    }
}
