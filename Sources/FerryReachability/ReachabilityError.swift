import FerryIO

/// Why a reachability manager could not be made or started.
public struct ReachabilityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The cause.
    public enum Reason: Sendable, Hashable {
        /// `init(address:)` was given text that is not a numeric IPv4 or IPv6 address.
        case invalidAddress(String)
        /// The rtnetlink socket could not be opened, bound or read.
        case system(SystemError)
    }

    /// The cause.
    public let reason: Reason

    /// Creates an error for `reason`.
    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// The cause in words, for example `not a numeric IPv4 or IPv6 address: "example"`.
    public var description: String {
        switch reason {
        case .invalidAddress(let text): "not a numeric IPv4 or IPv6 address: \"\(text)\""
        case .system(let error): "cannot watch the network through rtnetlink: \(error)"
        }
    }
}
