// Numbers from the Linux UAPI headers (linux/netlink.h, linux/rtnetlink.h, linux/if_addr.h,
// linux/if_link.h, linux/if.h, linux/if_arp.h). They are kernel ABI and never change, so they
// are spelled here rather than imported: most are anonymous enums or function-like macros
// that Swift cannot import, and the parser reads raw bytes anyway.

/// Netlink and rtnetlink numbers FerryReachability reads and writes.
enum Netlink {
    // MARK: - struct nlmsghdr (linux/netlink.h)

    /// `sizeof(struct nlmsghdr)`: length u32, type u16, flags u16, seq u32, pid u32.
    static let headerSize = 16
    /// `NLMSG_ALIGNTO` and `RTA_ALIGNTO`: messages and attributes start on 4-byte boundaries.
    static let alignment = 4

    static let noop: UInt16 = 1        // NLMSG_NOOP
    static let error: UInt16 = 2       // NLMSG_ERROR
    static let done: UInt16 = 3        // NLMSG_DONE
    static let overrun: UInt16 = 4     // NLMSG_OVERRUN

    static let flagRequest: UInt16 = 0x1     // NLM_F_REQUEST
    static let flagMulti: UInt16 = 0x2       // NLM_F_MULTI
    static let flagDumpInterrupted: UInt16 = 0x10  // NLM_F_DUMP_INTR
    static let flagDump: UInt16 = 0x300      // NLM_F_ROOT | NLM_F_MATCH

    /// The attribute type bits; NLA_F_NESTED and NLA_F_NET_BYTEORDER are flags above them.
    static let attributeTypeMask: UInt16 = 0x3FFF

    // MARK: - Message types (linux/rtnetlink.h)

    static let newLink: UInt16 = 16     // RTM_NEWLINK
    static let deleteLink: UInt16 = 17  // RTM_DELLINK
    static let getLink: UInt16 = 18     // RTM_GETLINK
    static let newAddress: UInt16 = 20  // RTM_NEWADDR
    static let deleteAddress: UInt16 = 21  // RTM_DELADDR
    static let getAddress: UInt16 = 22  // RTM_GETADDR
    static let newRoute: UInt16 = 24    // RTM_NEWROUTE
    static let deleteRoute: UInt16 = 25 // RTM_DELROUTE
    static let getRoute: UInt16 = 26    // RTM_GETROUTE

    /// The multicast groups a monitor joins (the legacy `RTMGRP_*` bit masks for `bind`).
    static let groups: UInt32 = 0x1    // RTMGRP_LINK
        | 0x10                         // RTMGRP_IPV4_IFADDR
        | 0x40                         // RTMGRP_IPV4_ROUTE
        | 0x100                        // RTMGRP_IPV6_IFADDR
        | 0x400                        // RTMGRP_IPV6_ROUTE

    // MARK: - struct ifinfomsg and IFLA_* (linux/rtnetlink.h, linux/if_link.h)

    /// family u8, pad u8, type u16, index s32, flags u32, change u32.
    static let ifinfomsgSize = 16
    static let linkName: UInt16 = 3     // IFLA_IFNAME

    // MARK: - struct ifaddrmsg and IFA_* (linux/if_addr.h)

    /// family u8, prefixlen u8, flags u8, scope u8, index u32.
    static let ifaddrmsgSize = 8
    static let addressAddress: UInt16 = 1  // IFA_ADDRESS
    static let addressLocal: UInt16 = 2    // IFA_LOCAL
    static let addressFlags: UInt16 = 8    // IFA_FLAGS (u32; supersedes ifa_flags)

    static let addressFlagDADFailed: UInt32 = 0x08  // IFA_F_DADFAILED
    static let addressFlagTentative: UInt32 = 0x40  // IFA_F_TENTATIVE

    // MARK: - struct rtmsg and RTA_* (linux/rtnetlink.h)

    /// family u8, dst_len u8, src_len u8, tos u8, table u8, protocol u8, scope u8, type u8,
    /// flags u32.
    static let rtmsgSize = 12
    static let routeDestination: UInt16 = 1  // RTA_DST
    static let routeOutput: UInt16 = 4       // RTA_OIF
    static let routeGateway: UInt16 = 5      // RTA_GATEWAY
    static let routePriority: UInt16 = 6     // RTA_PRIORITY
    static let routeMultipath: UInt16 = 9    // RTA_MULTIPATH
    static let routeTable: UInt16 = 15       // RTA_TABLE (u32; rtm_table holds only 8 bits)

    /// `sizeof(struct rtnexthop)`: len u16, flags u8, hops u8, ifindex s32.
    static let rtnexthopSize = 8

    static let routeTypeUnicast: UInt8 = 1   // RTN_UNICAST
    static let tableLocal: UInt32 = 255      // RT_TABLE_LOCAL
    static let nextHopDead: UInt32 = 0x1     // RTNH_F_DEAD
    static let nextHopLinkDown: UInt32 = 0x10  // RTNH_F_LINKDOWN

    // MARK: - Scopes (linux/rtnetlink.h, enum rt_scope_t)

    static let scopeUniverse: UInt8 = 0      // RT_SCOPE_UNIVERSE
    static let scopeSite: UInt8 = 200        // RT_SCOPE_SITE

    // MARK: - Interface flags (linux/if.h) and hardware types (linux/if_arp.h)

    static let interfaceUp: UInt32 = 0x1         // IFF_UP
    static let interfaceLoopback: UInt32 = 0x8   // IFF_LOOPBACK
    static let interfaceRunning: UInt32 = 0x40   // IFF_RUNNING (operationally up: carrier)

    static let hardwareEthernet: UInt16 = 1      // ARPHRD_ETHER
    static let hardwarePPP: UInt16 = 512         // ARPHRD_PPP
    static let hardwareRawIP: UInt16 = 519       // ARPHRD_RAWIP
    static let hardwareLoopback: UInt16 = 772    // ARPHRD_LOOPBACK
    static let hardwareIEEE80211: ClosedRange<UInt16> = 801...803  // ARPHRD_IEEE80211{,_PRISM,_RADIOTAP}
    static let hardwareNone: UInt16 = 0xFFFE     // ARPHRD_NONE

    // MARK: - Address families (linux/socket.h)

    static let familyIPv4: UInt8 = 2    // AF_INET
    static let familyIPv6: UInt8 = 10   // AF_INET6
}
