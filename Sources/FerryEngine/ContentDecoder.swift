import FerryWire

/// Undoes a response's Content-Encoding as the body streams in, within ``DecodingLimits``.
///
/// Supports `gzip` (and its alias `x-gzip`, RFC 9110 §8.4.1.3), `deflate` (zlib-wrapped or
/// raw: the first two bytes decide) and stacks of them; `identity` entries are skipped.
/// Stacked codings are undone in reverse order of listing (RFC 9110 §8.4).
///
/// Memory is fixed when the decoder is made: one output buffer of ``outputBufferSize`` bytes
/// per coding. Decoded bytes go to the caller's sink piece by piece and are never gathered.
/// The limits are checked on every piece before it is handed on, so a decompression bomb is
/// stopped within one output buffer of the limit, not after it has been inflated.
///
/// Confined to one event loop; not `Sendable`.
package final class ContentDecoder {
    /// Receives one piece of decoded body, valid only during the call.
    package typealias Sink = (UnsafeRawBufferPointer) throws(ContentDecodingError) -> Void

    /// Size of each layer's reused output buffer: large enough that zlib runs in long
    /// strides, small enough that a bomb overshoots a limit by little.
    package static let outputBufferSize = 64 * 1024

    /// The limits this decoder enforces.
    package let limits: DecodingLimits

    /// The layers in decoding order: the last listed coding first.
    private let layers: [ZlibStream]
    /// Decoded bytes handed to the sink (identity-only decoders pass bytes through).
    private var passedThrough: Int64 = 0
    /// Once a call failed, the decoder is spent and reports the same error again.
    private var failure: ContentDecodingError?

    /// Parses a Content-Encoding field value and prepares a decoder for it.
    ///
    /// The value is a comma-separated list (RFC 9110 §8.4): names are case-insensitive and
    /// surrounded by optional white space; empty elements and `identity` are ignored.
    /// A value naming only `identity` gives a decoder that passes bytes through; see
    /// ``make(contentEncoding:limits:)`` to get `nil` instead.
    /// - Parameters:
    ///   - contentEncoding: The field value, such as `gzip` or `deflate, gzip`.
    ///   - limits: Size, ratio and stacking limits.
    /// - Throws: ``ContentDecodingError/Kind/unsupportedEncoding`` for a coding other than
    ///   gzip, x-gzip, deflate or identity; ``ContentDecodingError/Kind/tooManyEncodings``
    ///   for more than ``DecodingLimits/maxStackedEncodings``; ``ContentDecodingError/Kind/libraryFailure``
    ///   when zlib cannot start.
    package convenience init(contentEncoding: String, limits: DecodingLimits) throws(ContentDecodingError) {
        try self.init(codings: Self.parse(contentEncoding, limits: limits), limits: limits)
    }

    /// Makes a decoder for a Content-Encoding value, or returns `nil` when there is nothing to
    /// decode (no field, or only `identity`).
    /// - Parameters:
    ///   - contentEncoding: The field value, or `nil` when the response has none.
    ///   - limits: Size, ratio and stacking limits.
    /// - Throws: As ``init(contentEncoding:limits:)``.
    package static func make(contentEncoding: String?, limits: DecodingLimits) throws(ContentDecodingError) -> ContentDecoder? {
        guard let contentEncoding else { return nil }
        let codings = try parse(contentEncoding, limits: limits)
        return codings.isEmpty ? nil : try ContentDecoder(codings: codings, limits: limits)
    }

    private init(codings: [(ZlibStream.Coding, String)], limits: DecodingLimits) throws(ContentDecodingError) {
        self.limits = limits
        var layers: [ZlibStream] = []
        layers.reserveCapacity(codings.count)
        for (coding, name) in codings.reversed() {
            layers.append(try ZlibStream(coding, name: name, outputSize: Self.outputBufferSize))
        }
        self.layers = layers
    }

    /// Encoded bytes taken in so far (trailing garbage after a complete stream is not counted).
    package var encodedByteCount: Int64 {
        layers.first?.consumedBytes ?? passedThrough
    }

    /// Decoded bytes produced so far: those handed to the sink, plus the piece a limit refused.
    package var decodedByteCount: Int64 {
        layers.last?.producedBytes ?? passedThrough
    }

    // MARK: - Decoding

    /// Decodes the next piece of the encoded body.
    ///
    /// `sink` may be called any number of times, with pieces of at most ``outputBufferSize``
    /// bytes from one reused buffer: copy what you keep.
    /// - Parameters:
    ///   - input: Encoded body bytes, as received.
    ///   - sink: Receives decoded bytes; an error it throws ends decoding.
    /// - Throws: ``ContentDecodingError/Kind/corruptData``, ``ContentDecodingError/Kind/decodedSizeLimitExceeded``,
    ///   ``ContentDecodingError/Kind/expansionRatioExceeded``, ``ContentDecodingError/Kind/libraryFailure``,
    ///   or what `sink` throws. After an error the decoder throws it again on every call.
    package func decode(_ input: UnsafeRawBufferPointer, _ sink: Sink) throws(ContentDecodingError) {
        if let failure { throw failure }
        do {
            if layers.isEmpty {
                passedThrough += Int64(input.count)
                try checkLimits(produced: passedThrough, encoding: "identity")
                if !input.isEmpty { try sink(input) }
            } else {
                try feed(0, input, sink)
            }
        } catch {
            failure = error
            throw error
        }
    }

    /// Declares the end of the body.
    /// - Throws: ``ContentDecodingError/Kind/truncatedStream`` when a coding's stream did not
    ///   reach its end (an empty body is accepted), or the error an earlier call threw.
    package func finish() throws(ContentDecodingError) {
        if let failure { throw failure }
        do {
            // Outermost first: when the outer stream is cut, that is the cause to report.
            for layer in layers { try layer.finish() }
        } catch {
            failure = error
            throw error
        }
    }

    /// Runs `input` through layer `index`, and its output through the layers after it.
    private func feed(_ index: Int, _ input: UnsafeRawBufferPointer, _ sink: Sink) throws(ContentDecodingError) {
        let layer = layers[index]
        try layer.inflate(input) { (piece) throws(ContentDecodingError) in
            // Every layer is held to the limits, not just the last: an inner bomb (or a flood
            // of trailing garbage) must not burn CPU unchecked either.
            try checkLimits(produced: layer.producedBytes, encoding: layer.name)
            if index + 1 < layers.count {
                try feed(index + 1, piece, sink)
            } else {
                try sink(piece)
            }
        }
    }

    /// Throws when `produced` decoded bytes break the size cap, or the expansion ratio
    /// against the encoded bytes taken so far (only past ``DecodingLimits/ratioGraceBytes``,
    /// because small bodies legitimately compress very well).
    private func checkLimits(produced: Int64, encoding: String) throws(ContentDecodingError) {
        if let maximum = limits.maxDecodedBytes, produced > maximum {
            throw ContentDecodingError(
                .decodedSizeLimitExceeded, encoding: encoding,
                detail: "more than \(maximum) decoded bytes"
            )
        }
        guard produced > limits.ratioGraceBytes else { return }
        let encoded = encodedByteCount
        let (allowed, overflow) = encoded.multipliedReportingOverflow(by: Int64(limits.maxExpansionRatio))
        if !overflow && produced > allowed {
            throw ContentDecodingError(
                .expansionRatioExceeded, encoding: encoding,
                detail: "\(produced) bytes decoded from \(encoded), more than \(limits.maxExpansionRatio):1"
            )
        }
    }

    // MARK: - Parsing the field

    /// The codings listed in `value`, in listing order, without `identity`.
    private static func parse(_ value: String, limits: DecodingLimits) throws(ContentDecodingError) -> [(ZlibStream.Coding, String)] {
        var codings: [(ZlibStream.Coding, String)] = []
        for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let token = HTTPSyntax.trimmingWhitespace(element)
            // RFC 9110 §5.6.1: recipients accept and ignore empty list elements.
            if token.isEmpty { continue }
            let name = String(decoding: token, as: UTF8.self).lowercased()
            let coding: ZlibStream.Coding
            switch name {
            case "identity": continue
            case "gzip", "x-gzip": coding = .gzip
            case "deflate": coding = .deflate
            default:
                throw ContentDecodingError(.unsupportedEncoding, encoding: String(name.prefix(64)))
            }
            codings.append((coding, name))
            // Checked while parsing, so a long list costs no more than the limit.
            if codings.count > limits.maxStackedEncodings {
                throw ContentDecodingError(
                    .tooManyEncodings, encoding: String(value.prefix(64)),
                    detail: "more than \(limits.maxStackedEncodings) stacked encodings"
                )
            }
        }
        return codings
    }
}

/// The decoder holds zlib state and is confined to one event loop.
@available(*, unavailable)
extension ContentDecoder: Sendable {}
