/// The reachability protocol as a value: kernel messages and timer and resolver events in,
/// actions out. No I/O, no clock; ``ReachabilityMonitor`` runs the actions on its loop.
///
/// The flow: dump links, then addresses, then routes (one request at a time, each ended by
/// `NLMSG_DONE`), building a fresh ``RouteTable`` while notifications keep arriving; when the
/// routes dump ends, evaluate at once and report the first status. From then on every
/// notification is applied as it comes; one that matters asks for an evaluation, which the
/// owner runs after a short pause so that a burst (a link going down removes addresses and
/// routes in a dozen messages) is reported once. Lost messages (`ENOBUFS`, `NLMSG_OVERRUN`, an
/// interrupted dump) and the kernel's silent route flushes start a fresh dump.
///
/// Replies are told from notifications by the port: a reply carries this socket's port ID and
/// the request's sequence number, a notification the port of whoever made the change.
package struct ReachabilityStateMachine: Sendable {
    /// What is being watched.
    package enum Target: Sendable, Hashable {
        /// General internet reachability: a usable default route.
        case internet
        /// One address: the kernel's route lookup for it.
        case address(IPAddress)
        /// One host name: resolved off the loop, then a lookup for each address in order.
        case host(String)
    }

    /// What the owner must do.
    package enum Action: Sendable, Hashable {
        /// Send `request` with `sequence`.
        case send(NetlinkRequest, sequence: UInt32)
        /// Call ``evaluationDue()`` after the coalescing pause.
        case scheduleEvaluation
        /// The status changed: publish it.
        case report(NetworkReachabilityStatus)
        /// Resolve the name off the loop and call ``resolved(_:)``.
        case resolve(String)
        /// The kernel refused a dump: monitoring cannot go on (`reason` is for the log).
        case fail(reason: String)
    }

    /// The answer of a name resolution.
    package enum Resolution: Sendable, Hashable {
        /// The addresses, in the resolver's order of preference.
        case addresses([IPAddress])
        /// The name does not exist: forget the addresses known before.
        case notFound
        /// A temporary failure (no DNS server reachable, …): keep what was known.
        case failed
    }

    private enum Phase: Sendable {
        case idle
        case dumping(NetlinkRequest, sequence: UInt32)
        case ready
    }

    private struct Lookup: Sendable {
        var addresses: [IPAddress]
        var index: Int
        var sequence: UInt32
    }

    /// The most addresses of one name that are looked up.
    package static let maxAddressesPerHost = 8

    private let target: Target
    private let portID: UInt32
    private let classify: @Sendable (_ name: String, _ hardwareType: UInt16) -> NetworkInterfaceKind
    private var phase = Phase.idle
    private var table = RouteTable()
    private var lastSequence: UInt32 = 0
    private var lastReported = NetworkReachabilityStatus.unknown
    private var evaluationPending = false
    private var resyncAfterDump = false
    private var lookup: Lookup?
    private var lookupAgain = false
    private var resolving = false
    private var resolveAgain = false
    private var hostAddresses: [IPAddress]?

    /// A machine for `target` on a socket whose port ID is `portID`.
    /// - Parameters:
    ///   - target: What to watch.
    ///   - portID: The socket's netlink port (`getsockname`), which the kernel puts in replies.
    ///   - classify: The interface kind for a name and `ARPHRD_*` type (``InterfaceClassifier``).
    package init(
        target: Target, portID: UInt32,
        classify: @escaping @Sendable (_ name: String, _ hardwareType: UInt16) -> NetworkInterfaceKind
    ) {
        self.target = target
        self.portID = portID
        self.classify = classify
    }

    /// The table as the messages so far describe it (for tests and diagnostics).
    package var routeTable: RouteTable { table }

    // MARK: - Events

    /// Monitoring starts: the first dump.
    package mutating func start() -> [Action] {
        beginDump()
    }

    /// The socket lost messages (`ENOBUFS`, or a datagram larger than the read buffer):
    /// nothing applied so far can be trusted to be complete, so dump again.
    ///
    /// A dump already running goes on to its end first: the kernel runs one dump per socket
    /// and refuses a second with `EBUSY`, an answer that a full socket can itself lose (which
    /// would leave the machine waiting forever). Dump replies are never dropped (the kernel
    /// pauses a dump while the socket is full), so the running one does end.
    package mutating func messagesLost() -> [Action] {
        if case .dumping = phase {
            resyncAfterDump = true
            return []
        }
        return beginDump()
    }

    /// One parsed message arrived.
    package mutating func received(_ message: NetlinkMessage) -> [Action] {
        guard message.header.portID == portID else { return notification(message.body) }
        if case .dumping(let request, let sequence) = phase, sequence == message.header.sequence {
            // NLM_F_DUMP_INTR: the kernel's tables changed while it was dumping them. The
            // whole dump is redone at its end (links, addresses and routes must agree).
            if message.header.flags & Netlink.flagDumpInterrupted != 0 { resyncAfterDump = true }
            return dumpReply(request, message.body)
        }
        if let lookup, lookup.sequence == message.header.sequence {
            return lookupReply(message.body)
        }
        // The reply to a request abandoned by a fresh dump.
        return []
    }

    /// The coalescing pause after ``Action/scheduleEvaluation`` ended.
    package mutating func evaluationDue() -> [Action] {
        evaluationPending = false
        guard case .ready = phase else { return [] }  // the dump's end evaluates
        return evaluate()
    }

    /// The name resolution asked for by ``Action/resolve(_:)`` ended.
    package mutating func resolved(_ resolution: Resolution) -> [Action] {
        guard case .host(let host) = target else { return [] }
        resolving = false
        switch resolution {
        case .addresses(let addresses): hostAddresses = Array(addresses.prefix(Self.maxAddressesPerHost))
        case .notFound: hostAddresses = []
        case .failed: hostAddresses = hostAddresses ?? []
        }
        var actions: [Action] = []
        if resolveAgain {
            resolveAgain = false
            resolving = true
            actions.append(.resolve(host))
        }
        if case .ready = phase { actions += lookUpHostAddresses() }
        return actions
    }

    // MARK: - Dumps

    private mutating func beginDump() -> [Action] {
        table = RouteTable()
        resyncAfterDump = false
        lookup = nil
        lookupAgain = false
        return sendDump(.dumpLinks)
    }

    private mutating func dumpReply(_ request: NetlinkRequest, _ body: NetlinkMessage.Body) -> [Action] {
        switch body {
        case .link, .address, .route:
            _ = table.apply(body)
            return []
        case .ignored:
            return []
        case .overrun:
            return messagesLost()
        case .error(let code):
            return [.fail(reason: "the kernel refused the \(request.name) (errno \(code))")]
        case .done:
            switch request {
            case .dumpLinks:
                return sendDump(.dumpAddresses)
            case .dumpAddresses:
                return sendDump(.dumpRoutes)
            case .dumpRoutes, .lookup:
                phase = .ready
                if resyncAfterDump { return beginDump() }
                return evaluate()
            }
        }
    }

    private mutating func notification(_ body: NetlinkMessage.Body) -> [Action] {
        if case .overrun = body { return messagesLost() }
        let change = table.apply(body)
        switch (phase, change) {
        case (_, .none):
            return []
        case (.idle, _):
            return []
        case (.dumping, .needsResync):
            resyncAfterDump = true
            return []
        case (.dumping, .changed):
            return []
        case (.ready, .needsResync):
            return beginDump()
        case (.ready, .changed):
            guard !evaluationPending else { return [] }
            evaluationPending = true
            return [.scheduleEvaluation]
        }
    }

    // MARK: - Evaluating

    private mutating func evaluate() -> [Action] {
        switch target {
        case .internet:
            guard let link = table.internetPath() else { return report(.notReachable) }
            return report(reachable(through: link))
        case .address(let address):
            return startLookup([address])
        case .host(let host):
            var actions: [Action] = []
            if resolving {
                resolveAgain = true
            } else {
                resolving = true
                actions.append(.resolve(host))
            }
            return actions + lookUpHostAddresses()
        }
    }

    /// Looks up the addresses known for the host; none known after a resolution means not
    /// reachable, none known before the first one means wait for it.
    private mutating func lookUpHostAddresses() -> [Action] {
        guard let addresses = hostAddresses else { return [] }
        guard !addresses.isEmpty else {
            lookup = nil
            return report(.notReachable)
        }
        return startLookup(addresses)
    }

    private mutating func startLookup(_ addresses: [IPAddress]) -> [Action] {
        guard lookup == nil else {
            lookupAgain = true
            return []
        }
        return sendLookup(addresses, index: 0)
    }

    private mutating func lookupReply(_ body: NetlinkMessage.Body) -> [Action] {
        guard let current = lookup else { return [] }
        switch body {
        case .route(let route, _):
            if let hop = route.nextHops.first(where: \.isAlive), let link = table.links[hop.interfaceIndex], link.isUp {
                return finishLookup(reachable(through: link))
            }
        case .error(let code) where code != 0:
            break  // ENETUNREACH, EHOSTUNREACH, EACCES (prohibit), EINVAL (blackhole): no way there
        case .error, .link, .address, .done, .overrun, .ignored:
            return []
        }
        guard current.index + 1 < current.addresses.count else { return finishLookup(.notReachable) }
        return sendLookup(current.addresses, index: current.index + 1)
    }

    private mutating func sendLookup(_ addresses: [IPAddress], index: Int) -> [Action] {
        let sequence = takeSequence()
        lookup = Lookup(addresses: addresses, index: index, sequence: sequence)
        return [.send(.lookup(addresses[index]), sequence: sequence)]
    }

    private mutating func finishLookup(_ status: NetworkReachabilityStatus) -> [Action] {
        lookup = nil
        var actions = report(status)
        if lookupAgain {
            lookupAgain = false
            switch target {
            case .internet: break
            case .address(let address): actions += startLookup([address])
            case .host: actions += lookUpHostAddresses()
            }
        }
        return actions
    }

    // MARK: - Helpers

    private func reachable(through link: LinkInfo) -> NetworkReachabilityStatus {
        let name = link.name ?? "if\(link.index)"
        return .reachable(via: classify(name, link.hardwareType), interface: name)
    }

    private mutating func report(_ status: NetworkReachabilityStatus) -> [Action] {
        guard status != lastReported else { return [] }
        lastReported = status
        return [.report(status)]
    }

    private mutating func sendDump(_ request: NetlinkRequest) -> [Action] {
        let sequence = takeSequence()
        phase = .dumping(request, sequence: sequence)
        return [.send(request, sequence: sequence)]
    }

    /// Sequence numbers count up from 1 and skip 0 when they wrap (0 is what notifications
    /// caused by the kernel itself carry).
    private mutating func takeSequence() -> UInt32 {
        lastSequence = lastSequence == .max ? 1 : lastSequence + 1
        return lastSequence
    }
}
