/// One rtnetlink message as the pure parser (``NetlinkParser``) reads it: the header and the
/// body it understood. Only the fields reachability needs are kept.
package struct NetlinkMessage: Sendable, Hashable {
    /// `struct nlmsghdr` (linux/netlink.h), host byte order.
    package struct Header: Sendable, Hashable {
        /// `nlmsg_len`: the message length including this header.
        package var length: UInt32
        /// `nlmsg_type`: `RTM_NEWLINK`, `NLMSG_DONE`, …
        package var type: UInt16
        /// `nlmsg_flags`: `NLM_F_MULTI`, `NLM_F_DUMP_INTR`, …
        package var flags: UInt16
        /// `nlmsg_seq`: the sequence number of the request this answers (or of the request of
        /// whoever caused a notification).
        package var sequence: UInt32
        /// `nlmsg_pid`: the port the message answers; a notification carries the port of the
        /// process whose request caused it (0 for the kernel's own changes).
        package var portID: UInt32

        /// Creates a header.
        package init(length: UInt32, type: UInt16, flags: UInt16, sequence: UInt32, portID: UInt32) {
            self.length = length
            self.type = type
            self.flags = flags
            self.sequence = sequence
            self.portID = portID
        }
    }

    /// What the message says.
    package enum Body: Sendable, Hashable {
        /// `RTM_NEWLINK` (`deleted` false) or `RTM_DELLINK`.
        case link(LinkInfo, deleted: Bool)
        /// `RTM_NEWADDR` or `RTM_DELADDR` for IPv4 or IPv6.
        case address(AddressInfo, deleted: Bool)
        /// `RTM_NEWROUTE` or `RTM_DELROUTE` for IPv4 or IPv6 (also the answer to a lookup).
        case route(RouteInfo, deleted: Bool)
        /// `NLMSG_DONE`: the end of a dump.
        case done
        /// `NLMSG_ERROR`: `errno` is 0 for an acknowledgement, else the positive error number.
        case error(errno: Int32)
        /// `NLMSG_OVERRUN`: data was lost.
        case overrun
        /// A well-formed message of a type reachability ignores (`NLMSG_NOOP`, other
        /// families' addresses, …).
        case ignored
    }

    /// The header.
    package var header: Header
    /// The body.
    package var body: Body

    /// Creates a message.
    package init(header: Header, body: Body) {
        self.header = header
        self.body = body
    }
}

/// A network interface from `RTM_NEWLINK`/`RTM_DELLINK` (`struct ifinfomsg` + `IFLA_IFNAME`).
package struct LinkInfo: Sendable, Hashable {
    /// `ifi_index`.
    package var index: Int32
    /// `ifi_type`: the `ARPHRD_*` hardware type.
    package var hardwareType: UInt16
    /// `ifi_flags`: `IFF_UP`, `IFF_RUNNING`, `IFF_LOOPBACK`, …
    package var flags: UInt32
    /// `IFLA_IFNAME`, when present.
    package var name: String?

    /// Creates a link.
    package init(index: Int32, hardwareType: UInt16, flags: UInt32, name: String?) {
        self.index = index
        self.hardwareType = hardwareType
        self.flags = flags
        self.name = name
    }

    /// Administratively up (`IFF_UP`) and operationally running (`IFF_RUNNING`: it has carrier).
    package var isUp: Bool {
        flags & Netlink.interfaceUp != 0 && flags & Netlink.interfaceRunning != 0
    }

    /// `IFF_LOOPBACK`.
    package var isLoopback: Bool { flags & Netlink.interfaceLoopback != 0 }
}

/// An interface address from `RTM_NEWADDR`/`RTM_DELADDR` (`struct ifaddrmsg` + attributes).
package struct AddressInfo: Sendable, Hashable {
    /// `ifa_index`.
    package var interfaceIndex: Int32
    /// `ifa_prefixlen`.
    package var prefixLength: UInt8
    /// `ifa_scope` (`RT_SCOPE_*`).
    package var scope: UInt8
    /// `IFA_FLAGS` when present, else `ifa_flags` (`IFA_F_TENTATIVE`, `IFA_F_DADFAILED`, …).
    package var flags: UInt32
    /// `IFA_LOCAL` when present (point-to-point links put the peer in `IFA_ADDRESS`), else
    /// `IFA_ADDRESS`.
    package var address: IPAddress

    /// Creates an address record.
    package init(interfaceIndex: Int32, prefixLength: UInt8, scope: UInt8, flags: UInt32, address: IPAddress) {
        self.interfaceIndex = interfaceIndex
        self.prefixLength = prefixLength
        self.scope = scope
        self.flags = flags
        self.address = address
    }

    /// Whether the address can carry traffic beyond the link: global (or site) scope, and not
    /// still in, or failed by, duplicate address detection (RFC 4862 §5.4). Link-local and
    /// host-scope addresses do not make a network reachable.
    package var isUsable: Bool {
        let scoped = scope == Netlink.scopeUniverse || scope == Netlink.scopeSite
        let detecting = flags & (Netlink.addressFlagTentative | Netlink.addressFlagDADFailed) != 0
        return scoped && !detecting
    }
}

/// A route from `RTM_NEWROUTE`/`RTM_DELROUTE` (`struct rtmsg` + attributes).
package struct RouteInfo: Sendable, Hashable {
    /// One way out: `RTA_OIF` with the route's flags, or one `struct rtnexthop` of
    /// `RTA_MULTIPATH`.
    package struct NextHop: Sendable, Hashable {
        /// The output interface index.
        package var interfaceIndex: Int32
        /// `RTNH_F_*` flags (`RTNH_F_LINKDOWN`, `RTNH_F_DEAD`).
        package var flags: UInt32

        /// Creates a next hop.
        package init(interfaceIndex: Int32, flags: UInt32) {
            self.interfaceIndex = interfaceIndex
            self.flags = flags
        }

        /// Neither dead nor over a link without carrier.
        package var isAlive: Bool { flags & (Netlink.nextHopDead | Netlink.nextHopLinkDown) == 0 }
    }

    /// The family.
    package var family: IPAddress.Family
    /// `rtm_dst_len`: 0 for a default route.
    package var destinationLength: UInt8
    /// `RTA_TABLE` when present, else `rtm_table`.
    package var table: UInt32
    /// `rtm_type` (`RTN_UNICAST`, `RTN_LOCAL`, `RTN_UNREACHABLE`, …).
    package var type: UInt8
    /// `RTA_DST`, absent for a default route.
    package var destination: IPAddress?
    /// `RTA_GATEWAY`, when the route goes through a router.
    package var gateway: IPAddress?
    /// `RTA_PRIORITY` (the metric), 0 when absent.
    package var priority: UInt32
    /// The ways out, in the kernel's order.
    package var nextHops: [NextHop]

    /// Creates a route record.
    package init(
        family: IPAddress.Family, destinationLength: UInt8, table: UInt32, type: UInt8,
        destination: IPAddress? = nil, gateway: IPAddress? = nil, priority: UInt32 = 0, nextHops: [NextHop]
    ) {
        self.family = family
        self.destinationLength = destinationLength
        self.table = table
        self.type = type
        self.destination = destination
        self.gateway = gateway
        self.priority = priority
        self.nextHops = nextHops
    }

    /// A unicast default route outside the local table: one that can carry internet traffic.
    package var isDefaultUnicast: Bool {
        destinationLength == 0 && type == Netlink.routeTypeUnicast && table != Netlink.tableLocal
    }
}
