// The chunked transfer coding (RFC 9112 §7.1) as a byte-level state machine:
//
//   chunk-size [ chunk-ext ] CRLF  chunk-data CRLF  ...  0 [ chunk-ext ] CRLF  trailer-section CRLF
//
// chunkSize -> (chunkExtension) -> chunkSizeLF -> chunkData -> chunkDataCR -> chunkDataLF -> chunkSize
//                                              \-> (size 0) trailerLines -> end
extension ResponseParser {
    /// Advances through the chunked states; `nil` means "keep going".
    mutating func stepChunked(
        _ input: UnsafeRawBufferPointer,
        _ index: inout Int,
        _ base: Int
    ) throws(HTTPParseError) -> Event? {
        switch state {
        case .chunkSize(var size, var digits):
            while index < input.count {
                let byte = input[index]
                if let digit = HTTPSyntax.hexValue(byte) {
                    // chunk-size must fit in 63 bits: refuse before the multiplication overflows.
                    guard size <= (Int64.max - digit) / 16 else {
                        throw HTTPParseError(.chunkSizeOverflow, offset: base + index)
                    }
                    size = size * 16 + digit
                    digits += 1
                    index += 1
                    continue
                }
                guard digits > 0 else { throw HTTPParseError(.invalidChunkSize, offset: base + index) }
                switch byte {
                case HTTPSyntax.cr:
                    index += 1
                    state = .chunkSizeLF(size: size)
                    return nil
                case HTTPSyntax.semicolon, HTTPSyntax.space, HTTPSyntax.tab:
                    // BWS ";" chunk-ext (RFC 9112 §7.1.1); the extension state counts these bytes.
                    state = .chunkExtension(size: size, bytes: 0, sawSemicolon: false)
                    return nil
                case HTTPSyntax.lf:
                    throw HTTPParseError(.invalidChunkFraming, offset: base + index)
                default:
                    throw HTTPParseError(.invalidChunkSize, offset: base + index)
                }
            }
            state = .chunkSize(size: size, digits: digits)
            return .needMoreData

        case .chunkExtension(let size, var bytes, var sawSemicolon):
            while index < input.count {
                let byte = input[index]
                if byte == HTTPSyntax.cr {
                    index += 1
                    state = .chunkSizeLF(size: size)
                    return nil
                }
                if !sawSemicolon {
                    // Only BWS may sit between the size and the first ";".
                    if byte == HTTPSyntax.semicolon {
                        sawSemicolon = true
                    } else if !HTTPSyntax.isWhitespace(byte) {
                        let kind: HTTPParseError.Kind = byte == HTTPSyntax.lf ? .invalidChunkFraming : .invalidChunkSize
                        throw HTTPParseError(kind, offset: base + index)
                    }
                } else if !HTTPSyntax.isFieldValueByte(byte) {
                    // Extensions are ignored (RFC 9112 §7.1.1) but may not hide LF or controls.
                    throw HTTPParseError(.invalidChunkFraming, offset: base + index)
                }
                bytes += 1
                guard bytes <= limits.maxChunkExtensionBytes else {
                    throw HTTPParseError(.chunkExtensionTooLong, offset: base + index)
                }
                index += 1
            }
            state = .chunkExtension(size: size, bytes: bytes, sawSemicolon: sawSemicolon)
            return .needMoreData

        case .chunkSizeLF(let size):
            guard index < input.count else { return .needMoreData }
            guard input[index] == HTTPSyntax.lf else { throw HTTPParseError(.invalidChunkFraming, offset: base + index) }
            index += 1
            if size == 0 {
                // last-chunk: the trailer section follows (RFC 9112 §7.1.2).
                state = .trailerLines
                lineStart = base + index
                sectionStart = base + index
            } else {
                state = .chunkData(remaining: size)
            }
            return nil

        case .chunkData(let remaining):
            guard index < input.count else { return .needMoreData }
            let (range, left) = Self.takeBody(upTo: remaining, of: input, at: &index)
            state = left == 0 ? .chunkDataCR : .chunkData(remaining: left)
            return .body(range)

        case .chunkDataCR:
            guard index < input.count else { return .needMoreData }
            guard input[index] == HTTPSyntax.cr else { throw HTTPParseError(.invalidChunkFraming, offset: base + index) }
            index += 1
            state = .chunkDataLF
            return nil

        case .chunkDataLF:
            guard index < input.count else { return .needMoreData }
            guard input[index] == HTTPSyntax.lf else { throw HTTPParseError(.invalidChunkFraming, offset: base + index) }
            index += 1
            state = .chunkSize(size: 0, digits: 0)
            return nil

        case .idle, .statusLine, .fieldLines, .fixedBody, .trailerLines, .untilClose, .endPending, .failed:
            return nil  // step() only sends chunked states here.
        }
    }
}
