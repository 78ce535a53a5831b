/// What kind of network an interface reaches, as far as Linux can tell.
///
/// ``InterfaceClassifier`` holds the rule that picks it.
public enum NetworkInterfaceKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Wired Ethernet (and anything presenting itself as Ethernet: bridges, veth, VLANs).
    case ethernet
    /// Wi-Fi (IEEE 802.11).
    case wifi
    /// Cellular / mobile broadband (AFNetworking's "WWAN").
    case wwan
    /// Anything else: tunnels, loopback, InfiniBand, …
    case other

    /// `ethernet`, `wifi`, `wwan` or `other`.
    public var description: String { rawValue }
}
