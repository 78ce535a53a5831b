#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: the `errno` it set and the call's name.
///
/// Ferry keeps the raw number for programs and renders the C library's text for people,
/// for example `connect: Connection refused (errno 111)`.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value the call left behind.
    public let errno: Int32
    /// The system call that failed, such as `connect`, `read` or `epoll_wait`.
    public let syscall: String

    /// Creates an error for `syscall` failing with `errno`.
    public init(errno: Int32, syscall: String) {
        self.errno = errno
        self.syscall = syscall
    }

    /// The C library's description of ``errno`` (`strerror`).
    public var errnoText: String {
        String(cString: strerror(errno))
    }

    /// `syscall: text (errno N)`.
    public var description: String {
        "\(syscall): \(errnoText) (errno \(errno))"
    }
}

/// A host name that could not be resolved.
public struct DNSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host name that was looked up.
    public let host: String
    /// The `getaddrinfo` result code (`EAI_NONAME`, `EAI_AGAIN`, …).
    public let code: Int32
    /// `errno` when ``code`` is `EAI_SYSTEM`, otherwise 0.
    public let systemErrno: Int32

    /// Creates an error for a failed lookup of `host`.
    public init(host: String, code: Int32, systemErrno: Int32 = 0) {
        self.host = host
        self.code = code
        self.systemErrno = systemErrno
    }

    /// True when the name does not exist (as opposed to a temporary or system failure).
    public var isNameNotFound: Bool {
        // EAI_NODATA (-5) and EAI_ADDRFAMILY (-9) are glibc extensions hidden behind
        // _GNU_SOURCE, so Swift does not import them; their values are fixed by glibc's ABI.
        code == EAI_NONAME || code == -5 || code == -9
    }

    /// `Could not resolve host: NAME (gai text)`.
    public var description: String {
        let text = code == EAI_SYSTEM
            ? String(cString: strerror(systemErrno))
            : String(cString: gai_strerror(code))
        return "Could not resolve host: \(host) (\(text))"
    }
}
