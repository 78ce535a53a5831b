import FerryWire

/// What a response to a continued download (`Range: bytes=N-`, with `If-Range` when the
/// bytes on disk have a validator) means for those bytes, as URLSession and curl `-C` read it.
/// Pure.
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

    /// Judges a response of `status` with `contentRange` to a request for bytes from `offset`;
    /// `validated` says whether the request carried `If-Range`.
    static func judge(status: Int, contentRange: String?, offset: Int64, validated: Bool) -> ResumeResponse {
        switch status {
        case 200:
            return validated ? .restarts : .mismatch("the server ignored the range request and sent the whole resource (200)")
        case 206:
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
            return .continues(total: parsed.completeLength)
        case 416:
            guard let text = contentRange, let parsed = ContentRange(text), parsed.range == nil,
                  let total = parsed.completeLength else {
                return .mismatch("416 without the resource's length")
            }
            guard total == offset else {
                return .mismatch("416: the resource has \(total) bytes, but \(offset) are on disk")
            }
            return .alreadyComplete
        default:
            return .otherStatus(status)
        }
    }
}
