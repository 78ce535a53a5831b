/// The kernel's links, addresses and default routes as the messages so far describe them.
/// Pure value: ``apply(_:)`` takes one parsed message, ``internetPath()`` answers "is there a
/// way out".
///
/// Only default routes are kept: general reachability needs nothing else, and a destination is
/// answered by the kernel's own route lookup, not by this copy.
package struct RouteTable: Sendable, Hashable {
    /// What one message did to the table.
    package enum Change: Sendable, Hashable {
        /// Nothing reachability depends on.
        case none
        /// Something reachability depends on; re-evaluate (after the coalescing pause).
        case changed
        /// The kernel dropped state without telling: when a link goes down or is removed, or
        /// an IPv4 address goes away, it flushes the IPv4 routes through it with no
        /// `RTM_DELROUTE` (observed on Linux 6.x with `ip monitor`). Only a fresh dump says
        /// what is left.
        case needsResync
    }

    /// A default route's identity, as the kernel matches a later replace or delete: for IPv4
    /// the table and metric (with destination 0/0 and TOS 0), for IPv6 also the gateway and
    /// the output interfaces, since IPv6 keeps one route per router.
    private struct RouteKey: Hashable {
        var family: IPAddress.Family
        var table: UInt32
        var priority: UInt32
        var gateway: IPAddress?
        var interfaces: [Int32]

        init(_ route: RouteInfo) {
            family = route.family
            table = route.table
            priority = route.priority
            let isIPv6 = route.family == .ipv6
            gateway = isIPv6 ? route.gateway : nil
            interfaces = isIPv6 ? route.nextHops.map(\.interfaceIndex) : []
        }
    }

    private struct AddressKey: Hashable {
        var interfaceIndex: Int32
        var address: IPAddress
        var prefixLength: UInt8
    }

    /// Links by index.
    package private(set) var links: [Int32: LinkInfo] = [:]
    private var addresses: [AddressKey: AddressInfo] = [:]
    private var defaultRoutes: [RouteKey: RouteInfo] = [:]

    /// An empty table.
    package init() {}

    /// Applies one message's body.
    package mutating func apply(_ body: NetlinkMessage.Body) -> Change {
        switch body {
        case .link(let link, let deleted):
            return deleted ? removeLink(link.index) : updateLink(link)
        case .address(let address, let deleted):
            let key = AddressKey(interfaceIndex: address.interfaceIndex, address: address.address, prefixLength: address.prefixLength)
            if deleted {
                guard addresses.removeValue(forKey: key) != nil else { return .none }
                return address.address.family == .ipv4 ? .needsResync : .changed
            }
            guard addresses.updateValue(address, forKey: key) != address else { return .none }
            return .changed
        case .route(let route, let deleted):
            // Every route change matters to a destination lookup, even when it is not a
            // default route; only default routes are stored.
            guard route.isDefaultUnicast else { return .changed }
            if deleted {
                defaultRoutes.removeValue(forKey: RouteKey(route))
            } else {
                defaultRoutes[RouteKey(route)] = route
            }
            return .changed
        case .done, .error, .overrun, .ignored:
            return .none
        }
    }

    private mutating func updateLink(_ link: LinkInfo) -> Change {
        var link = link
        let old = links[link.index]
        // A notification may leave the name out; the interface keeps the name it had.
        if link.name == nil { link.name = old?.name }
        links[link.index] = link
        if let old, old.flags & Netlink.interfaceUp != 0, link.flags & Netlink.interfaceUp == 0 {
            return .needsResync
        }
        return old == link ? .none : .changed
    }

    private mutating func removeLink(_ index: Int32) -> Change {
        links.removeValue(forKey: index)
        addresses = addresses.filter { $0.key.interfaceIndex != index }
        defaultRoutes = defaultRoutes.filter { !$0.value.nextHops.contains { $0.interfaceIndex == index } }
        return .needsResync
    }

    /// Whether `index` holds a usable address of `family` (see ``AddressInfo/isUsable``).
    package func hasUsableAddress(_ family: IPAddress.Family, on index: Int32) -> Bool {
        addresses.values.contains { $0.interfaceIndex == index && $0.address.family == family && $0.isUsable }
    }

    /// The link general (internet) reachability goes through, or nil when there is none.
    ///
    /// A default route counts when one of its next hops is alive and leaves through a link
    /// that is up and running, is not loopback, and holds a usable address of the route's
    /// family. Of several, the lowest metric wins, then IPv4 before IPv6, then the lowest
    /// interface index: the order is fixed so the answer does not flip between equals.
    package func internetPath() -> LinkInfo? {
        var best: (priority: UInt32, family: Int, link: LinkInfo)?
        for route in defaultRoutes.values {
            for hop in route.nextHops where hop.isAlive {
                guard let link = links[hop.interfaceIndex], link.isUp, !link.isLoopback,
                      hasUsableAddress(route.family, on: link.index) else { continue }
                let candidate = (priority: route.priority, family: route.family == .ipv4 ? 0 : 1, link: link)
                if let current = best,
                   (current.priority, current.family, current.link.index) <= (candidate.priority, candidate.family, link.index) {
                    continue
                }
                best = candidate
            }
        }
        return best?.link
    }
}
