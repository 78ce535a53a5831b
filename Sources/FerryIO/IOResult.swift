#if canImport(Glibc)
import Glibc
#endif

/// The outcome of a non-blocking operation: done (with a value) or "try again when ready".
///
/// "Would block" is never an error in Ferry: it is the normal answer of a non-blocking socket
/// with nothing to read or no room to write, so it is a case here and never a thrown
/// ``SystemError``.
package enum IOResult<T> {
    /// The operation ran; `T` is its result (bytes read or written, an accepted socket, …).
    case processed(T)
    /// The kernel had nothing to give or no room to take (`EAGAIN`/`EWOULDBLOCK`).
    case wouldBlock
}

extension IOResult: Sendable where T: Sendable {}
extension IOResult: Equatable where T: Equatable {}

/// Runs one system call with Ferry's only retry and would-block policy.
///
/// Every FerryIO call into the kernel that can be interrupted or can block goes through here,
/// so the rules live in one place: `EINTR` retries (a signal arrived, nothing happened),
/// `EAGAIN`/`EWOULDBLOCK` become ``IOResult/wouldBlock``, any other negative result throws
/// ``SystemError`` with the `errno` and `name`.
/// - Parameters:
///   - name: The system call's name, recorded in the error.
///   - call: The call; returns a negative value and sets `errno` on failure.
/// - Throws: ``SystemError`` for every failure other than `EINTR` and `EAGAIN`.
@inline(__always)
package func systemCall<R: BinaryInteger>(
    _ name: StaticString,
    _ call: () -> R
) throws(SystemError) -> IOResult<R> {
    while true {
        let result = call()
        if result >= 0 { return .processed(result) }
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
        throw SystemError(errno: code, syscall: "\(name)")
    }
}

/// ``systemCall(_:_:)`` for calls that never legitimately would block (`socket`,
/// `setsockopt`, `epoll_ctl`, …): a stray `EAGAIN` there is a real failure, so it throws.
/// - Throws: ``SystemError`` for every failure other than `EINTR`.
@inline(__always)
package func blockingSystemCall<R: BinaryInteger>(
    _ name: StaticString,
    _ call: () -> R
) throws(SystemError) -> R {
    switch try systemCall(name, call) {
    case .processed(let result): return result
    case .wouldBlock: throw SystemError(errno: EAGAIN, syscall: "\(name)")
    }
}
