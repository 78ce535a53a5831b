import FerryWire

/// What a response to a resumed download (`Range: bytes=N-` with `If-Range`) means for the
/// bytes already on disk, as URLSession and curl `-C` read it. Pure.
enum ResumeResponse: Equatable {
    /// 206 from byte N: append the body; `total` is the whole file's length when known.
    case continues(total: Int64?)
    /// 200: the resource changed (or the server ignores ranges): start over from byte 0.
    case restarts
    /// 416 whose complete length is N: every byte is on disk already.
    case alreadyComplete
    /// Anything else: the download cannot go on from here; the words say why.
    case refused(String)

    /// Judges a response of `status` with `contentRange` to a request for bytes from `offset`.
    static func judge(status: Int, contentRange: String?, offset: Int64) -> ResumeResponse {
        switch status {
        case 200:
            return .restarts
        case 206:
            guard let text = contentRange, let parsed = ContentRange(text), let range = parsed.range else {
                return .refused("206 without a valid Content-Range (\(contentRange.map { String($0.prefix(80)) } ?? "none"))")
            }
            guard range.lowerBound == offset else {
                return .refused("206 starts at byte \(range.lowerBound), not at \(offset) where the download stopped")
            }
            // The part must reach the end: a resumed download asked for everything from N.
            if let total = parsed.completeLength, range.upperBound != total - 1 {
                return .refused("206 ends at byte \(range.upperBound) of \(total), not at the end")
            }
            return .continues(total: parsed.completeLength)
        case 416:
            guard let text = contentRange, let parsed = ContentRange(text), parsed.range == nil,
                  let total = parsed.completeLength else {
                return .refused("416 without the resource's length")
            }
            guard total == offset else {
                return .refused("416: the resource has \(total) bytes, but \(offset) are on disk")
            }
            return .alreadyComplete
        default:
            return .refused("status \(status) to a range request")
        }
    }
}
