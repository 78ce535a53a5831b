import FerryReachability

extension FuzzTarget {
    /// One rtnetlink datagram as the reachability monitor receives it: every message read or
    /// skipped with a reason, never a read past the datagram.
    static let netlink = FuzzTarget(
        name: "netlink",
        summary: "rtnetlink datagrams: RTM_NEW/DELLINK, RTM_NEW/DELADDR, RTM_NEW/DELROUTE, NLMSG_ERROR, NLMSG_DONE and their attributes"
    ) { input in
        let output = NetlinkParser.parse(input)
        FuzzTarget.check(output.problems.allSatisfy { $0.offset >= 0 && $0.offset <= input.count }, "a problem placed outside the datagram")
    }
}
