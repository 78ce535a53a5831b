import FerryWire

/// What a response to a continued download (`Range: bytes=N-`, with `If-Range` when the
/// bytes on disk have a validator) means for those bytes, as URLSession and curl `-C` read it:
/// only a part of the same version (validator and length), from byte N to the end, is joined
/// to them. Pure.
enum ResumeResponse: Equatable {
    /// 206 from byte N: append the body; `total` is the whole file's length when known.
    case continues(total: Int64?)
    /// 200 to a request with `If-Range`: the resource changed, start over from byte 0.
    case restarts
    /// 416 whose complete length is N: every byte is on disk already.
    case alreadyComplete
    /// The answer does not fit the bytes on disk (a 206 elsewhere, a 416 of another length,
    /// a 200 to a range without `If-Range`, which cannot tell a changed resource from a server
    /// that ignores ranges): the words say why. Those bytes cannot be continued.
    case mismatch(String)
    /// Another status (a 404, a 503): nothing was said about the bytes on disk.
    case otherStatus(Int)

    /// What the bytes on disk are known to be part of.
    struct OnDisk: Equatable {
        /// How many there are: the request asks for bytes from here.
        var offset: Int64
        /// The version they belong to, sent in `If-Range`; nil when none was sent.
        var validator: DownloadResumeData.Validator?
        /// The whole resource's length when they were written, if the server said it.
        var expectedLength: Int64?
    }

    /// What the response says of itself, beyond its status.
    struct Answer: Equatable {
        var contentRange: String?
        /// Its `Content-Length`, when it has one.
        var contentLength: Int64?
        var entityTag: String?
        var lastModified: String?
    }

    /// Judges a response of `status` to a request for the bytes after `onDisk`.
    static func judge(status: Int, _ answer: Answer, onDisk: OnDisk) -> ResumeResponse {
        let offset = onDisk.offset
        switch status {
        case 200:
            return onDisk.validator != nil
                ? .restarts : .mismatch("the server ignored the range request and sent the whole resource (200)")
        case 206:
            let contentRange = answer.contentRange
            guard let text = contentRange, let parsed = ContentRange(text), let range = parsed.range else {
                return .mismatch("206 without a valid Content-Range (\(contentRange.map { String($0.prefix(80)) } ?? "none"))")
            }
            guard range.lowerBound == offset else {
                return .mismatch("206 starts at byte \(range.lowerBound), not at \(offset) where the download stopped")
            }
            // The part must reach the end: a continued download asked for everything from N.
            if let total = parsed.completeLength, range.upperBound != total - 1 {
                return .mismatch("206 ends at byte \(range.upperBound) of \(total), not at the end")
            }
            // A body of another length than its range would leave the file short or long.
            if let length = answer.contentLength, length != range.upperBound - range.lowerBound + 1 {
                return .mismatch("206 for bytes \(range.lowerBound)-\(range.upperBound) carries \(length) bytes")
            }
            // Only parts of one version may be joined (RFC 9110 §15.3.7.3): a server or proxy
            // that ignored If-Range shows it by naming another version, or another length.
            if let refusal = otherVersion(answer, parsed.completeLength, onDisk: onDisk) { return .mismatch(refusal) }
            return .continues(total: parsed.completeLength)
        case 416:
            guard let text = answer.contentRange, let parsed = ContentRange(text), parsed.range == nil,
                  let total = parsed.completeLength else {
                return .mismatch("416 without the resource's length")
            }
            guard total == offset else {
                return .mismatch("416: the resource has \(total) bytes, but \(offset) are on disk")
            }
            // The bytes on disk were of a longer resource: this one is another.
            if let expected = onDisk.expectedLength, expected != total {
                return .mismatch("416: the resource has \(total) bytes, but the download began with \(expected)")
            }
            return .alreadyComplete
        default:
            return .otherStatus(status)
        }
    }

    /// Whether two HTTP-dates name the same second (the cookie date algorithm reads every form
    /// one may take); text that is not a date must match exactly.
    private static func sameDate(_ one: String, _ other: String) -> Bool {
        guard let first = SetCookieParser.cookieDate(one), let second = SetCookieParser.cookieDate(other) else { return one == other }
        return first == second
    }

    /// An entity tag without its weakness prefix.
    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }

    /// Why a 206 is of another version than the bytes on disk, or nil when nothing says so.
    private static func otherVersion(_ answer: Answer, _ total: Int64?, onDisk: OnDisk) -> String? {
        // Compared weakly (RFC 9110 §8.8.3.2): the server compared If-Range strongly, and a
        // CDN may weaken the tag of what it passes on; a date is compared as a date.
        switch onDisk.validator {
        case .entityTag(let tag)?:
            if let other = answer.entityTag, opaque(other) != opaque(tag) {
                return "the 206 is of version \(other.prefix(80)), the bytes on disk of \(tag.prefix(80))"
            }
        case .lastModified(let date)?:
            if let other = answer.lastModified, !sameDate(other, date) {
                return "the 206 was last modified \(other.prefix(40)), the bytes on disk \(date.prefix(40))"
            }
        case nil:
            break
        }
        if let expected = onDisk.expectedLength, let total, expected != total {
            return "the 206 says the resource has \(total) bytes, but the download began with \(expected)"
        }
        return nil
    }
}
