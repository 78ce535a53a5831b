import FerryEngine

/// The download and upload caps that bytes count against: a session's (shared by all its
/// tasks), or a task's own (whose bytes count against its session's caps as well).
struct BandwidthCaps: Sendable {
    var download: BandwidthLimiter?
    var upload: BandwidthLimiter?

    /// No cap.
    init() {}

    /// Caps of the given rates under `parent` (a rate of nil or below 1 is no cap of its own:
    /// the parent's applies alone).
    init(downloadBytesPerSecond: Int64?, uploadBytesPerSecond: Int64?, under parent: BandwidthCaps = BandwidthCaps()) {
        download = Self.limiter(downloadBytesPerSecond, under: parent.download)
        upload = Self.limiter(uploadBytesPerSecond, under: parent.upload)
    }

    /// A cap of `bytesPerSecond` under `parent`; nil for nil or a rate below 1.
    static func limiter(_ bytesPerSecond: Int64?, under parent: BandwidthLimiter?) -> BandwidthLimiter? {
        guard let bytesPerSecond, bytesPerSecond > 0 else { return nil }
        return BandwidthLimiter(bytesPerSecond: bytesPerSecond, parent: parent)
    }

    /// What one exchange runs under: these caps where set, else `session`'s; a body's own
    /// cap (a throttled multipart form) sits under the upload cap, for this exchange alone.
    func forExchange(under session: BandwidthCaps, bodyBytesPerSecond: Int64?) -> BandwidthCaps {
        var caps = BandwidthCaps()
        caps.download = download ?? session.download
        caps.upload = Self.limiter(bodyBytesPerSecond, under: upload ?? session.upload) ?? upload ?? session.upload
        return caps
    }
}
