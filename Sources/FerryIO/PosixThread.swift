import CFerryShims
#if canImport(Glibc)
import Glibc
#endif

/// A joinable POSIX thread.
///
/// Foundation's `Thread` cannot be joined, and ``EventLoopGroup/shutdownGracefully()`` must
/// return only once the loops have really stopped; so FerryIO starts its threads here.
struct PosixThread: Sendable {
    /// The thread's handle (an integer on Linux).
    let handle: pthread_t

    /// The calling thread's handle.
    static var current: pthread_t { pthread_self() }

    /// Starts a thread named `name` (truncated to the kernel's 15 bytes) running `body`.
    /// - Throws: ``SystemError`` from `pthread_create` (`EAGAIN` when out of threads).
    static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) -> PosixThread {
        final class Box: Sendable {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
        let box = Unmanaged.passRetained(Box(name: name, body: body))
        var handle = pthread_t()
        let code = pthread_create(&handle, nil, { argument in
            // The retain taken before pthread_create is balanced here, on the new thread.
            guard let argument else { return nil }
            let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
            // Best effort: a thread without its name still works.
            _ = cferry_set_thread_name(box.name)
            box.body()
            return nil
        }, box.toOpaque())
        guard code == 0 else {
            box.release()
            throw SystemError(errno: code, syscall: "pthread_create")
        }
        return PosixThread(handle: handle)
    }

    /// True when called on this thread.
    var isCurrent: Bool { pthread_equal(handle, pthread_self()) != 0 }

    /// Waits for the thread to end. Must be called once, and never by the thread itself.
    func join() {
        _ = pthread_join(handle, nil)
    }

    /// Lets the thread end without a join (used when the thread would have to join itself).
    func detach() {
        _ = pthread_detach(handle)
    }
}
