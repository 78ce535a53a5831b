/// Identifies a timer scheduled on an ``EventLoop``, for ``EventLoop/cancelTimer(_:)``.
package struct TimerID: Sendable, Hashable, CustomStringConvertible {
    /// The scheduling sequence number; unique per loop, increasing.
    package let rawValue: UInt64
    /// Where the timer's body is kept while it can fire.
    let slot: Int

    /// `Timer#<n>`.
    package var description: String { "Timer#\(rawValue)" }
}

/// A binary min-heap of timers ordered by deadline, then by scheduling order.
///
/// Confined to one loop thread (not `Sendable`). Cancellation is lazy: the body is dropped at
/// once (so a cancelled timer can never fire and its captures are released), and the heap
/// entry is skipped when it reaches the top. The heap is rebuilt when dead entries outnumber
/// live ones, so a connect timeout cancelled on every request cannot grow it without bound.
/// Bodies live in reused slots named by the timer's identifier, so scheduling, cancelling and
/// looking at the top cost an array access each, not a hash (several per request).
struct TimerQueue {
    private struct Entry {
        let deadline: Deadline
        let id: UInt64
        let slot: Int

        /// Earlier deadline first; equal deadlines in scheduling order.
        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    /// A body and the sequence number of the timer it belongs to; 0 while the slot is free.
    private struct Slot {
        var id: UInt64 = 0
        var body: (() -> Void)?
    }

    private var heap: [Entry] = []
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var nextID: UInt64 = 1

    /// Number of timers that can still fire.
    private(set) var count = 0

    /// Adds a timer and returns its identifier.
    mutating func schedule(at deadline: Deadline, _ body: @escaping () -> Void) -> TimerID {
        let id = nextID
        nextID += 1
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = Slot(id: id, body: body)
        } else {
            slot = slots.count
            slots.append(Slot(id: id, body: body))
        }
        count += 1
        heap.append(Entry(deadline: deadline, id: id, slot: slot))
        siftUp(heap.count - 1)
        return TimerID(rawValue: id, slot: slot)
    }

    /// Cancels a timer; unknown or already fired identifiers are ignored.
    mutating func cancel(_ id: TimerID) {
        guard id.slot >= 0, id.slot < slots.count, slots[id.slot].id == id.rawValue else { return }
        _ = take(id.slot)
        if heap.count > 64 && heap.count > 2 * count { compact() }
    }

    /// The earliest live deadline, dropping cancelled entries from the top on the way.
    mutating func nextDeadline() -> Deadline? {
        while let top = heap.first {
            if isLive(top) { return top.deadline }
            popTop()
        }
        return nil
    }

    /// Removes and returns the body of the earliest live timer due at `now`, if it was
    /// scheduled before sequence number `limit`. The limit keeps a timer that reschedules
    /// itself for "now" from starving I/O: it runs on the next turn instead.
    mutating func popExpired(now: Deadline, scheduledBefore limit: UInt64) -> (() -> Void)? {
        while let top = heap.first, top.deadline <= now {
            guard isLive(top) else {
                popTop()
                continue
            }
            guard top.id < limit else { return nil }
            popTop()
            return take(top.slot)
        }
        return nil
    }

    private func isLive(_ entry: Entry) -> Bool { slots[entry.slot].id == entry.id }

    /// Frees `slot` and returns the body it held.
    private mutating func take(_ slot: Int) -> (() -> Void)? {
        var taken = Slot()
        swap(&taken, &slots[slot])
        freeSlots.append(slot)
        count -= 1
        return taken.body
    }

    /// The sequence number the next scheduled timer gets (see ``popExpired(now:scheduledBefore:)``).
    var nextSequence: UInt64 { nextID }

    // MARK: - Heap mechanics

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func compact() {
        let slots = self.slots
        heap.removeAll { slots[$0.slot].id != $0.id }
        // Floyd's heap construction: sift down every parent, last to first.
        var index = heap.count / 2 - 1
        while index >= 0 {
            siftDown(index)
            index -= 1
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count && heap[right].precedes(heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
