/// What one task remembers of HTTP authentication (RFC 9110 §11): each protection space it
/// answered, with which credential and how often that failed, and the answer whose verdict
/// (the next response) is still awaited. Confined to the exchange's loop thread, as the rest
/// of ``TaskEngineSide``.
struct TaskAuthentication {
    /// One protection space this task answered.
    struct Attempt {
        var space: ProtectionSpace
        /// The credential sent last.
        var credential: Credential
        /// Answers the server refused (a 401 for the same space came back).
        var failures: Int
        /// Retries after a Digest `stale=true`, which refuse the nonce, not the credential.
        var staleRetries: Int
    }

    /// Most answers to challenges one task sends, whatever the server says: no loop.
    static let maximumAnswers = 8
    /// Most retries after `stale=true` for one protection space.
    static let maximumStaleRetries = 2

    private(set) var attempts: [Attempt] = []
    /// The space answered by the running exchange's request, until its response arrives.
    private(set) var pending: ProtectionSpace?
    /// Answers sent so far.
    private(set) var answers = 0

    /// Whether the running exchange's request carries an answer whose verdict is awaited.
    var awaitsVerdict: Bool { pending != nil }

    /// What this task tried for `space`, if anything.
    func attempt(for space: ProtectionSpace) -> Attempt? {
        attempts.first { $0.space == space }
    }

    /// A challenge for `space` arrived: if the running request answered it, that answer failed.
    mutating func challenged(_ space: ProtectionSpace) {
        guard pending == space, let index = attempts.firstIndex(where: { $0.space == space }) else { return }
        attempts[index].failures += 1
        pending = nil
    }

    /// `credential` is about to answer `space`; `stale` when only the nonce was refused.
    mutating func answering(_ space: ProtectionSpace, with credential: Credential, stale: Bool) {
        answers += 1
        pending = space
        if let index = attempts.firstIndex(where: { $0.space == space }) {
            attempts[index].credential = credential
            if stale {
                attempts[index].staleRetries += 1
                attempts[index].failures -= 1
            }
        } else {
            attempts.append(Attempt(space: space, credential: credential, failures: 0, staleRetries: 0))
        }
    }

    /// The response to the answered request was not a challenge: the credential worked.
    /// - Returns: The space and credential that worked.
    mutating func succeeded() -> Attempt? {
        guard let space = pending else { return nil }
        pending = nil
        return attempt(for: space)
    }
}
