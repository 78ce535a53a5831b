import FerryBase
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import FerryIO

#if canImport(Glibc)
import Glibc
#endif

/// The generous bound for "eventually": long enough for a loaded CI machine, short enough
/// that a broken wake-up fails the test instead of hanging the suite.
let eventually: DispatchTimeInterval = .seconds(eventuallySeconds)
let eventuallySeconds = 10

/// A one-shot value handed from a loop thread to the test.
///
/// The test suspends in ``wait()`` instead of blocking: Swift Testing runs tests on the
/// cooperative pool (one thread per core), and a parked pool thread stalls every other test.
/// (TestSupport's `AsyncEvent` does the same, but this target does not depend on TestSupport.)
final class Latch<T: Sendable>: Sendable {
    private struct State {
        var value: T?
        var waiters: [Int: CheckedContinuation<T?, Never>] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    /// Sets the value (first call wins) and wakes the waiters.
    func fulfill(_ newValue: T) {
        let waiters = state.withLock { state -> [CheckedContinuation<T?, Never>] in
            guard state.value == nil else { return [] }
            state.value = newValue
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: newValue) }
    }

    /// Suspends up to ``eventually`` for the value; nil when it did not come in time.
    func wait() async -> T? {
        let id: Int = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: .seconds(eventuallySeconds))
            expire(id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let value: T?? = state.withLock { state in
                    if let value = state.value { return .some(value) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let value { continuation.resume(returning: value) }
            }
        } onCancel: {
            expire(id)
        }
    }

    private func expire(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
    }
}

/// A thread-safe list the loop appends to and the test reads.
final class Recorder<T: Sendable>: Sendable {
    private let items = Locked<[T]>([])
    func append(_ item: T) { items.withLock { $0.append(item) } }
    var values: [T] { items.withLock { $0 } }
}

extension EventLoop {
    /// Runs `body` on the loop and waits (suspended) for its result.
    func sync<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let latch = Latch<Result<T, any Error>>()
        execute { latch.fulfill(Result { try body() }) }
        guard let result = await latch.wait() else {
            throw SystemError(errno: ETIMEDOUT, syscall: "test: loop did not run the task")
        }
        return try result.get()
    }
}

/// Runs `body` with a fresh one-loop group and shuts it down afterwards.
func withLoop<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: (EventLoop) async throws -> T
) async throws -> T {
    let group = try EventLoopGroup(loopCount: 1)
    defer { group.shutdownGracefully() }
    return try await body(group.loops[0])
}

/// Polls `fd` for `events` without blocking a thread: a zero-timeout poll(2), then a short
/// suspension, until ready or `timeout` (default ``eventually``) passed.
/// - Returns: whether the descriptor became ready.
func pollReady(_ fd: Int32, events: Int16, within timeout: Duration = .seconds(eventuallySeconds)) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        if poll(&entry, 1, 0) == 1 { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return false
}

/// A connected pair of non-blocking Unix stream sockets.
func makeSocketPair() throws -> (Socket, Socket) {
    var fds: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, type, 0, &fds) == 0 else {
        throw SystemError(errno: errno, syscall: "socketpair")
    }
    return (Socket(adopting: fds[0]), Socket(adopting: fds[1]))
}

/// A handler that forwards each callback to closures (called on the loop thread).
final class ClosureHandler: IOHandler {
    var onReadable: () -> Void = {}
    var onWritable: () -> Void = {}
    var onHangup: () -> Void = {}
    func readable() { onReadable() }
    func writable() { onWritable() }
    func hangup() { onHangup() }
}

extension Socket {
    /// Writes `bytes` (test convenience).
    func write(_ bytes: [UInt8]) throws -> IOResult<Int> {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Reads up to `count` bytes (test convenience); nil on would-block.
    func read(count: Int) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        let result = try buffer.withUnsafeMutableBytes { try read(into: $0) }
        switch result {
        case .wouldBlock: return nil
        case .processed(let n): return Array(buffer.prefix(n))
        }
    }
}

/// Loopback address helpers.
let loopbackV4 = SocketAddress(ipAddress: "127.0.0.1", port: 0)!
let loopbackV6 = SocketAddress(ipAddress: "::1", port: 0)!

/// A socket bound to a 127.0.0.1 port without listening: connects to that port are refused,
/// and holding it keeps a parallel test from taking the port.
func refusingLoopbackPort() throws -> (holder: Socket, port: UInt16) {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw SystemError(errno: errno, syscall: "socket") }
    let holder = Socket(adopting: fd)
    let bound = loopbackV4.withSockAddr { bind(fd, $0, $1) }
    guard bound == 0 else { throw SystemError(errno: errno, syscall: "bind") }
    return (holder, try holder.localAddress.port)
}
