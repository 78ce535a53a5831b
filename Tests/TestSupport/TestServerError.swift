// Errors thrown by the test servers and the raw test client.

/// Why a test server or ``RawHTTPClient`` could not do what was asked.
public struct TestServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A readable explanation, with the failing syscall and `errno` when there was one.
    public let message: String

    /// Creates an error with a message.
    /// - Parameter message: what went wrong.
    public init(_ message: String) {
        self.message = message
    }

    /// A readable description.
    public var description: String { message }

    /// A failure of `syscall` described by the current `errno`.
    static func system(_ syscall: String, errno code: Int32) -> TestServerError {
        TestServerError("\(syscall) failed: \(String(cString: strerror(code))) (errno \(code))")
    }

    /// The host is not a loopback literal: the servers never listen anywhere else.
    static func notLoopback(_ host: String) -> TestServerError {
        TestServerError("test servers listen only on 127.0.0.1 or ::1, not \(host)")
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
