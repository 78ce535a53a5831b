// TLSTestServer's thread-safe tally of connections, handshakes and application bytes.
import FerryBase
import NIOConcurrencyHelpers

/// Internal: written from the server's event loop, read from tests on any thread. Totals are
/// exact; the per-connection records keep the most recent `limit` connections.
final class TLSRecorder: Sendable {
    private struct State {
        var nextIndex = 0
        var handshakes = 0
        var handshakeFailures = 0
        var applicationBytes = 0
        var records: [TLSConnectionRecord] = []
    }

    private let state = NIOLockedValueBox(State())
    private let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Starts a record for a new connection and returns its index.
    func connectionOpened(remoteAddress: String?) -> Int {
        state.withLockedValue { state in
            let index = state.nextIndex
            state.nextIndex += 1
            if state.records.count >= limit { state.records.removeFirst(state.records.count - limit + 1) }
            state.records.append(TLSConnectionRecord(index: index, remoteAddress: remoteAddress))
            return index
        }
    }

    func handshakeCompleted(_ index: Int, update: (inout TLSConnectionRecord) -> Void) {
        state.withLockedValue { state in
            state.handshakes += 1
            Self.update(&state, index) { record in
                record.handshakeCompleted = true
                update(&record)
            }
        }
    }

    func handshakeFailed(_ index: Int, reason: String) {
        state.withLockedValue { state in
            state.handshakeFailures += 1
            Self.update(&state, index) { $0.handshakeError = reason }
        }
    }

    func received(_ count: Int, on index: Int) {
        state.withLockedValue { state in
            state.applicationBytes += count
            Self.update(&state, index) { $0.applicationBytesReceived += count }
        }
    }

    func closed(_ index: Int) {
        state.withLockedValue { state in Self.update(&state, index) { $0.isClosed = true } }
    }

    private static func update(_ state: inout State, _ index: Int, _ body: (inout TLSConnectionRecord) -> Void) {
        // Records are in index order: the one sought is `index - first` places in, if still kept.
        guard let first = state.records.first?.index, index >= first, index - first < state.records.count else { return }
        body(&state.records[index - first])
    }

    var handshakeCount: Int { state.withLockedValue { $0.handshakes } }
    var handshakeFailureCount: Int { state.withLockedValue { $0.handshakeFailures } }
    var applicationBytes: Int { state.withLockedValue { $0.applicationBytes } }
    var records: [TLSConnectionRecord] { state.withLockedValue { $0.records } }

    func reset() {
        state.withLockedValue { state in
            // Indexes keep counting so that a connection still open updates nothing stale.
            let next = state.nextIndex
            state = State()
            state.nextIndex = next
        }
    }
}
