import Ferry

/// A misbehaviour bench-chaos injects when a request's path names it (`/f/<fault>/<size>`), how
/// often the soak asks for it, and what the request must end with.
enum Fault: String, CaseIterable, Sendable {
    case ok, chunked, idleclose, drip, reset, resethead, cut, garbage, stall

    /// How many of every 10,000 requests ask for this fault.
    var weight: Int {
        switch self {
        case .ok: 7_900
        case .chunked: 500
        case .idleclose: 600
        case .drip: 20
        case .reset: 300
        case .resethead: 100
        case .cut: 300
        case .garbage: 275
        case .stall: 5
        }
    }

    /// The errors the request may end with; nil when it must deliver the whole body. A
    /// keep-alive connection the server closed while idle is the client's to retry, so
    /// `idleclose` (and every request after one on the same connection) must still succeed.
    var allowedFailures: Set<NetworkError.Code>? {
        switch self {
        case .ok, .chunked, .idleclose, .drip: nil
        // No byte of a response: the connection was lost (a GET on a reused connection is
        // sent again once, on a new one, which the server resets in turn).
        case .reset: [.networkConnectionLost]
        case .resethead: [.networkConnectionLost]
        case .cut: [.networkConnectionLost]
        case .garbage: [.cannotParseResponse]
        case .stall: [.timedOut]
        }
    }

    /// The fault for a draw in 0..<10,000.
    static func drawn(_ value: Int) -> Fault {
        var rest = value
        for fault in allCases {
            if rest < fault.weight { return fault }
            rest -= fault.weight
        }
        return .ok
    }
}
