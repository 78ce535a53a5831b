import HTTPTypes

// Line-oriented parts of the response: status line, field lines, trailer lines.
extension ResponseParser {
    // MARK: - Lines

    /// Reads one line (the status line, a field line or a trailer line) and acts on it.
    ///
    /// The LF search never looks further than `maxLineLength + 2` bytes into a line, so the
    /// decision "too long" depends only on the bytes, never on how they were split.
    mutating func readLine(
        _ input: UnsafeRawBufferPointer,
        _ index: inout Int,
        _ base: Int
    ) throws(HTTPParseError) -> Event? {
        let tooLong: HTTPParseError.Kind
        if case .statusLine = state { tooLong = .statusLineTooLong } else { tooLong = .fieldLineTooLong }
        let maxLine = maxLineLength
        let budget = maxLine + 2 - lineBuffer.count  // >= 1: lineBuffer never exceeds maxLine + 1
        let end = input.count - index > budget ? index + budget : input.count
        let start = index
        guard let lf = HTTPSyntax.firstIndex(of: HTTPSyntax.lf, in: input, from: start, to: end) else {
            if lineBuffer.count + (end - start) >= maxLine + 2 {
                throw HTTPParseError(tooLong, offset: lineStart + maxLine)
            }
            lineBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<end]))
            index = end
            return .needMoreData
        }
        index = lf + 1
        let lineEnd = base + index
        // RFC 9112 §2.2: CRLF ends a line; a recipient MAY take a bare LF as the end too.
        let location: LineLocation
        if lineBuffer.isEmpty {
            var contentEnd = lf
            if contentEnd > start && input[contentEnd - 1] == HTTPSyntax.cr { contentEnd -= 1 }
            location = .input(start..<contentEnd)
            if contentEnd - start > maxLine { throw HTTPParseError(tooLong, offset: lineStart + maxLine) }
        } else {
            lineBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<lf]))
            if lineBuffer.last == HTTPSyntax.cr { lineBuffer.removeLast() }
            location = .buffered
            if lineBuffer.count > maxLine { throw HTTPParseError(tooLong, offset: lineStart + maxLine) }
        }

        let event: Event?
        switch location {
        case .input(let range):
            event = try processLine(UnsafeRawBufferPointer(rebasing: input[range]), lineEnd: lineEnd)
        case .buffered:
            // Move the buffer out so processing can mutate `self` while reading it; no copy.
            var line: [UInt8] = []
            swap(&line, &lineBuffer)
            defer {
                line.removeAll(keepingCapacity: true)
                swap(&line, &lineBuffer)
            }
            // Array.withUnsafeBytes only rethrows untyped errors; carry ours through a Result.
            let result = line.withUnsafeBytes { bytes -> Result<Event?, HTTPParseError> in
                do throws(HTTPParseError) {
                    return .success(try processLine(bytes, lineEnd: lineEnd))
                } catch {
                    return .failure(error)
                }
            }
            event = try result.get()
        }
        lineStart = lineEnd
        return event
    }

    /// Acts on one complete line according to the state.
    mutating func processLine(_ line: UnsafeRawBufferPointer, lineEnd: Int) throws(HTTPParseError) -> Event? {
        switch state {
        case .statusLine:
            try checkSection(lineEnd: lineEnd, limit: limits.maxHeaderBytes, kind: .headerSectionTooLarge)
            try parseStatusLine(line)
            state = .fieldLines
            return nil
        case .fieldLines:
            try checkSection(lineEnd: lineEnd, limit: limits.maxHeaderBytes, kind: .headerSectionTooLarge)
            if line.isEmpty { return try finishHead(lineEnd: lineEnd) }
            try appendField(line)
            return nil
        case .trailerLines:
            try checkSection(lineEnd: lineEnd, limit: limits.maxTrailerBytes, kind: .trailersTooLarge)
            guard line.isEmpty else {
                try appendField(line)
                return nil
            }
            state = .idle
            return .end(trailers: takeFields())
        case .idle, .fixedBody, .chunkSize, .chunkExtension, .chunkSizeLF, .chunkData, .chunkDataCR, .chunkDataLF,
            .untilClose, .endPending, .failed:
            return nil  // readLine is only called in the three line states.
        }
    }

    /// Refuses a section (head or trailers) that has grown past `limit` bytes.
    func checkSection(lineEnd: Int, limit: Int, kind: HTTPParseError.Kind) throws(HTTPParseError) {
        if lineEnd - sectionStart > limit { throw HTTPParseError(kind, offset: sectionStart + max(limit, 0)) }
    }

    /// An error about `line[position]`, reported as `bareCarriageReturn` if that byte is a CR
    /// (RFC 9112 §2.2: a bare CR is invalid wherever it appears).
    func lineError(_ kind: HTTPParseError.Kind, _ line: UnsafeRawBufferPointer, at position: Int) -> HTTPParseError {
        if position < line.count && line[position] == HTTPSyntax.cr {
            return HTTPParseError(.bareCarriageReturn, offset: lineStart + position)
        }
        return HTTPParseError(kind, offset: lineStart + position)
    }

    // MARK: - Status line

    /// `HTTP-version SP 3DIGIT SP [ reason-phrase ]` (RFC 9112 §4).
    mutating func parseStatusLine(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) {
        let prefix: StaticString = "HTTP/"
        for position in 0..<5 {
            guard position < line.count, line[position] == prefix.utf8Start[position] else {
                throw lineError(.invalidStatusLine, line, at: position)
            }
        }
        // HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3).
        guard line.count > 5, let major = decimalDigit(line[5]) else { throw lineError(.invalidStatusLine, line, at: 5) }
        guard line.count > 6, line[6] == UInt8(ascii: ".") else { throw lineError(.invalidStatusLine, line, at: 6) }
        guard line.count > 7, let minor = decimalDigit(line[7]) else { throw lineError(.invalidStatusLine, line, at: 7) }
        guard major == 1 else { throw HTTPParseError(.unsupportedVersion, offset: lineStart + 5) }
        guard line.count > 8, line[8] == HTTPSyntax.space else { throw lineError(.invalidStatusLine, line, at: 8) }
        var code = 0
        for position in 9..<12 {
            guard position < line.count, let digit = decimalDigit(line[position]) else {
                throw lineError(.invalidStatusLine, line, at: position)
            }
            code = code * 10 + digit
        }
        // RFC 9110 §15: codes below 100 are not defined and can't be classified.
        guard code >= 100 else { throw HTTPParseError(.invalidStatusLine, offset: lineStart + 9) }
        var reasonStart = 12
        if line.count > 12 {
            guard line[12] == HTTPSyntax.space else { throw lineError(.invalidStatusLine, line, at: 12) }
            reasonStart = 13
        }
        // reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ).
        var isASCII = true
        for position in reasonStart..<max(reasonStart, line.count) {
            let byte = line[position]
            guard HTTPSyntax.isFieldValueByte(byte) else { throw lineError(.invalidStatusLine, line, at: position) }
            if byte >= 0x80 { isASCII = false }
        }
        let reasonBytes = UnsafeRawBufferPointer(rebasing: line[min(reasonStart, line.count)...])
        let reason: String
        if isASCII {
            reason = String(decoding: reasonBytes, as: UTF8.self)
        } else {
            // swift-http-types stores reason phrases as ISO Latin 1: one scalar per byte.
            var latin1 = String.UnicodeScalarView()
            for byte in reasonBytes { latin1.append(Unicode.Scalar(byte)) }
            reason = String(latin1)
        }
        version = HTTPVersion(major: major, minor: minor)
        status = HTTPResponse.Status(code: code, reasonPhrase: reason)
    }

    /// The value of an ASCII decimal digit.
    func decimalDigit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte &- 0x30) : nil
    }

    // MARK: - Field lines

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5).
    mutating func appendField(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) {
        // RFC 9112 §5.2: a line starting with white space is obs-fold (or, right after the
        // status line, §2.2 whitespace before the first field); both are refused.
        if HTTPSyntax.isWhitespace(line[0]) { throw HTTPParseError(.obsoleteLineFolding, offset: lineStart) }
        guard fields.count < maxFieldCount else { throw HTTPParseError(.tooManyFields, offset: lineStart) }
        var colon = 0
        while colon < line.count && HTTPSyntax.isTokenByte(line[colon]) { colon += 1 }
        // RFC 9112 §5.1: no white space between name and colon; the name is a non-empty token.
        guard colon > 0, colon < line.count, line[colon] == HTTPSyntax.colon else {
            throw lineError(.invalidFieldName, line, at: colon)
        }
        var valueStart = colon + 1
        var valueEnd = line.count
        while valueStart < valueEnd && HTTPSyntax.isWhitespace(line[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart && HTTPSyntax.isWhitespace(line[valueEnd - 1]) { valueEnd -= 1 }
        var isASCII = true
        for position in valueStart..<valueEnd {
            let byte = line[position]
            guard HTTPSyntax.isFieldValueByte(byte) else { throw lineError(.invalidFieldValue, line, at: position) }
            if byte >= 0x80 { isASCII = false }
        }
        let nameBytes = UnsafeRawBufferPointer(rebasing: line[..<colon])
        guard let name = KnownFieldNames.lookup(nameBytes) ?? HTTPField.Name(String(decoding: nameBytes, as: UTF8.self))
        else { throw HTTPParseError(.invalidFieldName, offset: lineStart) }
        let valueBytes = UnsafeRawBufferPointer(rebasing: line[valueStart..<valueEnd])
        // ASCII (almost every value) goes through the stdlib's fast UTF-8 path; obs-text bytes
        // are kept as bytes, never "repaired" into U+FFFD.
        let field =
            isASCII
            ? HTTPField(name: name, value: String(decoding: valueBytes, as: UTF8.self))
            : HTTPField(name: name, value: valueBytes)
        // Room for a typical head at once, rather than growing through 1, 2, 4, 8 and 16.
        if fields.isEmpty {
            fields.reserveCapacity(16)
            fieldLineOffsets.reserveCapacity(16)
        }
        fields.append(field)
        fieldLineOffsets.append(lineStart)
    }

    // MARK: - End of head

    /// Decides framing at the empty line ending the head; skips interim 1xx responses.
    mutating func finishHead(lineEnd: Int) throws(HTTPParseError) -> Event? {
        let decision: BodyFraming.Decision
        do throws(BodyFraming.Failure) {
            decision = try BodyFraming.decide(
                statusCode: status.code,
                version: version,
                requestMethod: requestMethod,
                headerFields: fields
            )
        } catch {
            let offset = error.fieldIndex < fieldLineOffsets.count ? fieldLineOffsets[error.fieldIndex] : lineStart
            throw HTTPParseError(error.kind, offset: offset)
        }
        fieldLineOffsets.removeAll(keepingCapacity: true)
        // RFC 9110 §15.2: a client must accept any number of interim responses before the
        // final one, and may ignore them; 101 is final for HTTP/1.1 (the protocol changes).
        if (100...199).contains(status.code) && status.code != 101 {
            if status.code == 100 { receivedContinue = true }
            fields = HTTPFields()
            sectionStart = lineEnd
            state = .statusLine
            return nil
        }
        let head = ResponseHead(
            version: version,
            status: status,
            headerFields: takeFields(),
            framing: decision.framing,
            keepAlive: decision.keepAlive
        )
        switch decision.framing {
        case .none, .contentLength(0):
            state = .endPending
        case .contentLength(let length):
            state = .fixedBody(remaining: length)
        case .chunked:
            state = .chunkSize(size: 0, digits: 0)
        case .untilClose:
            state = .untilClose
        }
        return .head(head)
    }
}
