import Ferry

/// Several trust evaluators that must all accept, asked in order; the first refusal wins.
///
/// `ferry --pin-cert A --pin-pubkey B --pinnedpubkey C` sets up one evaluator per flag, and a
/// server must satisfy every one of them.
struct EvaluatorChain: ServerTrustEvaluating {
    let evaluators: [any ServerTrustEvaluating]

    /// Runs every evaluator in order.
    /// - Throws: the first ``ServerTrustError`` any of them throws.
    func evaluate(_ trust: ServerTrust, forDomain domain: String) throws(ServerTrustError) {
        for evaluator in evaluators {
            try evaluator.evaluate(trust, forDomain: domain)
        }
    }
}
