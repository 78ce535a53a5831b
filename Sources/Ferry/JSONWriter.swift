/// Writes a ``ParameterValue`` as JSON (RFC 8259) without Foundation's `JSONSerialization`:
/// what ``JSONRequestSerializer`` sends. Object names in ascending order, so the same
/// parameters always make the same bytes; strings escaped as `JSONSerialization` escapes them
/// (`/` too, unless asked not to); whole doubles written without a fraction (`2`, as
/// `JSONSerialization` writes `2.0`).
struct JSONWriter {
    /// Why a value has no JSON form.
    enum Failure: Error, Equatable {
        /// A set: JSON has no unordered collection (AFNetworking refuses an `NSSet` too).
        case set(path: String)
        /// NaN or an infinity.
        case nonFiniteNumber(path: String)
    }

    var prettyPrinted = false
    var escapesSlashes = true

    /// The JSON bytes of `value`.
    func write(_ value: ParameterValue) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        try write(value, path: "", depth: 0, into: &output)
        return output
    }

    private func write(_ value: ParameterValue, path: String, depth: Int, into output: inout [UInt8]) throws(Failure) {
        switch value {
        case .string(let text):
            writeString(text, into: &output)
        case .int(let number):
            output.append(contentsOf: String(number).utf8)
        case .double(let number):
            guard number.isFinite else { throw .nonFiniteNumber(path: path) }
            let whole = number.rounded() == number && abs(number) < 9_007_199_254_740_992
            output.append(contentsOf: (whole ? String(Int64(number)) : String(number)).utf8)
        case .bool(let truth):
            output.append(contentsOf: (truth ? "true" : "false").utf8)
        case .null:
            output.append(contentsOf: "null".utf8)
        case .set:
            throw .set(path: path.isEmpty ? "(top level)" : path)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1, into: &output)
                try write(element, path: path + "[\(index)]", depth: depth + 1, into: &output)
            }
            if !values.isEmpty { newline(depth, into: &output) }
            output.append(UInt8(ascii: "]"))
        case .dictionary(let values):
            output.append(UInt8(ascii: "{"))
            for (index, name) in values.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1, into: &output)
                writeString(name, into: &output)
                output.append(contentsOf: (prettyPrinted ? " : " : ":").utf8)
                try write(values[name]!, path: path.isEmpty ? name : path + "." + name, depth: depth + 1, into: &output)
            }
            if !values.isEmpty { newline(depth, into: &output) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ depth: Int, into output: inout [UInt8]) {
        guard prettyPrinted else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    private func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "/") where escapesSlashes: output.append(contentsOf: "\\/".utf8)
            case 0x0A: output.append(contentsOf: "\\n".utf8)
            case 0x0D: output.append(contentsOf: "\\r".utf8)
            case 0x09: output.append(contentsOf: "\\t".utf8)
            case 0x08: output.append(contentsOf: "\\b".utf8)
            case 0x0C: output.append(contentsOf: "\\f".utf8)
            case 0x00..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                output.append(contentsOf: "\\u00".utf8)
                output.append(digits[Int(byte >> 4)])
                output.append(digits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
