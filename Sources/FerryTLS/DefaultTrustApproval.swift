import FoundationEssentials

/// The default rules' "trusted" verdict on a server's chain, and the period it holds for: the
/// overlap of the validity periods of every certificate on the path they built.
///
/// A resumable TLS session carries the verdict of the handshake that made it. A connection
/// that resumes the session brings no chain of its own; its server proved it holds the
/// session's secret, which only the approved server had. So within that period the verdict
/// stands, and the same chain is not verified again on every resumed connection. This is for
/// the default rules only: a session's own evaluator (the caller's code, which may have changed
/// its mind) is asked again on every connection.
package struct DefaultTrustApproval: Sendable {
    /// The chain as first judged.
    package let trust: ServerTrust
    private let validFrom: Date
    private let validUntil: Date

    /// The approval of `trust`, or nil when the default rules refuse it.
    package init?(_ trust: ServerTrust) {
        // Read off the OpenSSL objects of the built path: no certificate is parsed again.
        guard let validity = trust.defaultPathValidity else { return nil }
        self.trust = trust
        validFrom = validity.from
        validUntil = validity.until
    }

    /// The verdict still holds at `date`: every certificate of the path is valid then.
    package func holds(at date: Date = Date()) -> Bool {
        validFrom <= date && date <= validUntil
    }
}
