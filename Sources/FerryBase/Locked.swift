import Synchronization

#if FERRY_TSAN
import CFerrySanitizers
#endif

// A value behind a lock: Synchronization's `Mutex`, which Ferry uses everywhere under this name
// so that ThreadSanitizer can see it.
//
// On Linux, `Mutex` is a priority-inheritance futex: when it is contended the kernel hands the
// lock to the waiter, and ThreadSanitizer, which sees only the instrumented atomics, finds no
// happens-before edge and reports every contended critical section as a race (a ten-line
// program with two threads appending to a `Mutex<[Int]>` shows it). Built with `FERRY_TSAN`
// (`Scripts/test --sanitize thread` sets it), `Locked` is a wrapper whose critical sections
// tell ThreadSanitizer they acquire and release the lock; otherwise it is `Mutex` itself, so a
// release build runs exactly Synchronization's code (a wrapper that is only `@inlinable` is
// not specialized across modules: its generic form cost about 10,000 instructions per W1
// request in metadata lookups).

#if FERRY_TSAN
/// `Mutex`, with each critical section announced to ThreadSanitizer (the `FERRY_TSAN` build).
package struct Locked<Value: ~Copyable>: ~Copyable {
    private let mutex: Mutex<Value>
    /// The address ThreadSanitizer's acquire and release name: a byte of its own, since the
    /// value's address cannot be taken before the value is accessed.
    private nonisolated(unsafe) let token = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

    /// A lock around `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    deinit { token.deallocate() }

    /// Runs `body` with the value while holding the lock (`Mutex.withLock`).
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            __tsan_acquire(token)
            defer { __tsan_release(token) }
            return try body(&value)
        }
    }
}

extension Locked: Sendable where Value: ~Copyable {}
#else
/// A value behind a lock: Synchronization's `Mutex` (see the comment above for the name).
package typealias Locked<Value: ~Copyable> = Mutex<Value>
#endif
