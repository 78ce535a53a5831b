import FerryEngine

// Who caps a request's bandwidth: its session (the caps all its tasks share), its task (a cap
// of its own, whose bytes count against the session's too), and its body (a throttled
// multipart form's cap, under the task's or session's upload cap, for that exchange alone).

extension BandwidthLimits {
    /// A session's caps, from its configuration; nil without any.
    static func session(downloadBytesPerSecond: Int64?, uploadBytesPerSecond: Int64?) -> BandwidthLimits? {
        BandwidthLimits(download: limiter(downloadBytesPerSecond, under: nil), upload: limiter(uploadBytesPerSecond, under: nil))
    }

    /// A cap of `bytesPerSecond` under `parent`; nil for nil or a rate below 1 (no cap of its
    /// own: the parent's applies alone).
    static func limiter(_ bytesPerSecond: Int64?, under parent: BandwidthLimiter?) -> BandwidthLimiter? {
        guard let bytesPerSecond, bytesPerSecond > 0 else { return nil }
        return BandwidthLimiter(bytesPerSecond: bytesPerSecond, parent: parent)
    }

    /// What one exchange runs under: the task's own caps where it has them, else the
    /// session's; a body's cap sits under the upload cap. Without task or body caps it is the
    /// session's object itself (nil for most sessions): nothing is made per request.
    static func forExchange(task: BandwidthLimits?, session: BandwidthLimits?, bodyBytesPerSecond: Int64?) -> BandwidthLimits? {
        guard task != nil || bodyBytesPerSecond != nil else { return session }
        let upload = task?.upload ?? session?.upload
        return BandwidthLimits(download: task?.download ?? session?.download,
                               upload: limiter(bodyBytesPerSecond, under: upload) ?? upload)
    }
}
