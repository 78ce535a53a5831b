/// Whether the network (or one destination) can be reached, and through what.
///
/// As AFNetworkReachabilityStatus, with the interface named: ``unknown`` until the first kernel
/// dump is read, then ``notReachable`` or ``reachable(via:interface:)``.
public enum NetworkReachabilityStatus: Sendable, Hashable, CustomStringConvertible {
    /// Not known yet: monitoring has not started, or the kernel's state has not been read.
    case unknown
    /// No usable way out.
    case notReachable
    /// Reachable through interface `interface` (such as `eth0`), of kind `via`.
    case reachable(via: NetworkInterfaceKind, interface: String)

    /// True for ``reachable(via:interface:)``.
    public var isReachable: Bool {
        switch self {
        case .reachable: true
        case .unknown, .notReachable: false
        }
    }

    /// The kind of the interface in use, when reachable.
    public var interfaceKind: NetworkInterfaceKind? {
        switch self {
        case .reachable(let kind, _): kind
        case .unknown, .notReachable: nil
        }
    }

    /// The name of the interface in use, when reachable.
    public var interfaceName: String? {
        switch self {
        case .reachable(_, let name): name
        case .unknown, .notReachable: nil
        }
    }

    /// `unknown`, `not-reachable`, or `reachable via KIND (IFNAME)` such as
    /// `reachable via wifi (wlan0)`: the words `ferry-reach` prints.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .notReachable: "not-reachable"
        case .reachable(let kind, let name): "reachable via \(kind) (\(name))"
        }
    }
}
