import Ferry
import Foundation

// TEMPORARY — DELETE THIS FILE when the lead merges the real `Session` API into this branch.
//
// It declares, with the signatures the lead announced, the parts of `Session` that
// `Transfer.swift` calls, so the tool compiles before they exist. Once the real API lands,
// these declarations become ambiguous with it and the build fails until this file is gone,
// so it cannot linger. Nothing here pretends to do network work: every request fails.

/// Stand-in for FerrySession's `ResponseBody`: an empty, typed-throwing byte-chunk sequence.
struct ResponseBody: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    typealias Failure = NetworkError

    struct Iterator: AsyncIteratorProtocol {
        typealias Element = [UInt8]
        typealias Failure = NetworkError
        mutating func next() async throws(NetworkError) -> [UInt8]? { nil }
    }

    func makeAsyncIterator() -> Iterator { Iterator() }
}

extension Session {
    /// Stand-in for `Session.bytes(for:delegate:)`: fails without touching the network.
    func bytes(for request: NetworkRequest, delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> (ResponseBody, NetworkResponse) {
        throw NetworkError(
            .unsupportedURL, reason: "this ferry was built before Session.bytes(for:) existed (SessionShim.swift)",
            failingURL: request.url)
    }

    /// Stand-in for `Session.invalidateAndCancel()`.
    func invalidateAndCancel() {}
}
