/// What one task remembers of HTTP authentication (RFC 9110 §11): each protection space it
/// answered, with which credential and how often that failed, and the answer whose verdict
/// (the next response) is still awaited. Confined to the exchange's loop thread, as the rest
/// of ``TaskEngineSide``, and small: a task that never authenticates carries three words.
struct TaskAuthentication {
    /// One protection space this task answered.
    struct Attempt: Sendable {
        var space: ProtectionSpace
        /// The credential sent last.
        var credential: Credential
        /// Answers the server refused (a 401 for the same space came back).
        var failures: Int
        /// Retries after a Digest `stale=true`, which refuse the nonce, not the credential.
        var staleRetries: Int
        /// The session sent this answer up front (``PreemptiveAuthentication``), not the task.
        var upFront: String?
    }

    /// Most answers to challenges one task sends, whatever the server says: no loop.
    static let maximumAnswers = 8
    /// Most retries after `stale=true` for one protection space.
    static let maximumStaleRetries = 2

    private(set) var attempts: [Attempt] = []
    /// The attempt the running exchange's request carries, until its response arrives.
    private var pending: Int?
    /// Answers sent so far.
    private(set) var answers = 0

    /// Whether the running exchange's request carries an answer whose verdict is awaited.
    var awaitsVerdict: Bool { pending != nil }

    /// The `Authorization` value the session sent up front with the running request, if any.
    var sentUpFront: String? { pending.flatMap { attempts[$0].upFront } }

    /// What this task tried for `space`, if anything.
    func attempt(for space: ProtectionSpace) -> Attempt? {
        attempts.first { $0.space == space }
    }

    /// The session sends `answer` with the next request, before any challenge: it counts as
    /// this task's attempt for its space (so a refusal is not answered with the same again).
    mutating func sendingUpFront(_ answer: PreemptiveAuthentication.Answer) {
        if let index = attempts.firstIndex(where: { $0.space == answer.space }) {
            attempts[index].upFront = answer.authorization
            pending = index
        } else {
            attempts.append(Attempt(space: answer.space, credential: answer.credential, failures: 0, staleRetries: 0,
                                    upFront: answer.authorization))
            pending = attempts.count - 1
        }
    }

    /// A challenge offering `spaces` arrived: if the running request answered one of them,
    /// that answer failed.
    /// - Returns: The space whose failure was counted, if any.
    mutating func challenged(offering spaces: [ProtectionSpace]) -> ProtectionSpace? {
        defer { pending = nil }
        guard let index = pending, spaces.contains(attempts[index].space) else { return nil }
        attempts[index].failures += 1
        attempts[index].upFront = nil
        return attempts[index].space
    }

    /// `credential` is about to answer `space`; `stale` when only the nonce was refused.
    mutating func answering(_ space: ProtectionSpace, with credential: Credential, stale: Bool) {
        answers += 1
        if let index = attempts.firstIndex(where: { $0.space == space }) {
            attempts[index].credential = credential
            attempts[index].upFront = nil
            if stale {
                attempts[index].staleRetries += 1
                attempts[index].failures -= 1
            }
            pending = index
        } else {
            attempts.append(Attempt(space: space, credential: credential, failures: 0, staleRetries: 0, upFront: nil))
            pending = attempts.count - 1
        }
    }

    /// The response to the answered request came. A server's answer worked if the status is
    /// below 400; a proxy's if the proxy did not ask again (407), whatever the server said.
    /// - Returns: The space and credential that worked, unless the session sent the answer
    ///   up front (it knew it worked already) or the answer failed. When the one asked asks
    ///   again, the answer stays awaited for ``challenged(offering:)`` to count the failure.
    mutating func answered(status: Int) -> Attempt? {
        guard let index = pending else { return nil }
        let isProxy = attempts[index].space.isProxy
        if status == (isProxy ? 407 : 401) { return nil }
        pending = nil
        guard attempts[index].upFront == nil, isProxy || status < 400 else { return nil }
        return attempts[index]
    }
}
