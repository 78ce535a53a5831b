/// The caps an exchange runs under: one reference in every request, nil in the common case
/// of none, so an uncapped exchange pays one check per read and write.
package final class BandwidthLimits: Sendable {
    /// Caps how fast the response is read (its head and body as they arrive, before decoding).
    package let download: BandwidthLimiter?
    /// Caps how fast the request body is sent (the head and chunk framing go freely).
    package let upload: BandwidthLimiter?

    /// Limits of these caps; nil when there is neither.
    package init?(download: BandwidthLimiter?, upload: BandwidthLimiter?) {
        guard download != nil || upload != nil else { return nil }
        self.download = download
        self.upload = upload
    }
}
