/// Ferry's one JSON writer (RFC 8259), without Foundation's `JSONSerialization`: what
/// ``JSONRequestSerializer`` sends for a ``ParameterValue`` and what a ``JSONValue`` becomes.
/// Object names in ascending order, so the same value always makes the same bytes; strings
/// escaped as `JSONSerialization` escapes them (`/` too, unless asked not to).
///
/// Both value types go through the same generic code (``JSONWritable``), so there is one
/// string escaper and one number rule set; the compiler specialises it for each type.
struct JSONWriter {
    /// Why a value has no JSON form, and where it sits.
    struct Failure: Error, Equatable, CustomStringConvertible {
        /// What JSON cannot hold.
        enum Kind: Equatable {
            /// A set: JSON has no unordered collection (AFNetworking refuses an `NSSet` too).
            case set
            /// NaN or an infinity.
            case nonFiniteNumber
        }

        let kind: Kind
        /// The path from the top, built innermost first while the writer unwinds, so a value
        /// that writes costs no path bookkeeping.
        private(set) var reversedPath: [PathComponent] = []

        init(_ kind: Kind) { self.kind = kind }

        /// `a.b[1]`, or `(top level)`.
        var path: String {
            var text = ""
            for component in reversedPath.reversed() {
                switch component {
                case .name(let name): text += text.isEmpty ? name : "." + name
                case .index(let index): text += "[\(index)]"
                }
            }
            return text.isEmpty ? "(top level)" : text
        }

        var description: String {
            switch kind {
            case .set: "a set at \(path) (JSON has arrays only)"
            case .nonFiniteNumber: "a number at \(path) is NaN or infinite"
            }
        }

        func inside(_ component: PathComponent) -> Failure {
            var failure = self
            failure.reversedPath.append(component)
            return failure
        }
    }

    /// One step of a ``Failure``'s path.
    enum PathComponent: Equatable {
        case name(String)
        case index(Int)
    }

    var prettyPrinted = false
    var escapesSlashes = true
    /// A whole double written without a fraction (`2`, as `JSONSerialization` writes `2.0`);
    /// otherwise Swift's shortest round-trip form (`2.0`, `1e+16`), which reads back as a double.
    var writesWholeDoublesAsIntegers = false
    /// NaN and infinities written `NaN`, `Infinity`, `-Infinity` (not JSON) instead of failing:
    /// for descriptions only.
    var writesNonFiniteNumbers = false

    /// The JSON bytes of `value`.
    func write(_ value: some JSONWritable) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        try write(value, depth: 0, into: &output)
        return output
    }

    /// The text of a value for a description: never fails (``writesNonFiniteNumbers`` must be set).
    func writeDescription(_ value: some JSONWritable) -> [UInt8] {
        var output: [UInt8] = []
        do throws(Failure) {
            try write(value, depth: 0, into: &output)
        } catch {
            output.append(contentsOf: "<\(error.description)>".utf8)
        }
        return output
    }

    private func write<Value: JSONWritable>(_ value: Value, depth: Int, into output: inout [UInt8]) throws(Failure) {
        switch value.jsonForm {
        case .string(let text):
            writeString(text, into: &output)
        case .int(let number):
            output.append(contentsOf: String(number).utf8)
        case .double(let number):
            try writeDouble(number, into: &output)
        case .bool(let truth):
            output.append(contentsOf: (truth ? "true" : "false").utf8)
        case .null:
            output.append(contentsOf: "null".utf8)
        case .unwritable(let kind):
            throw Failure(kind)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1, into: &output)
                do throws(Failure) {
                    try write(element, depth: depth + 1, into: &output)
                } catch {
                    throw error.inside(.index(index))
                }
            }
            if !values.isEmpty { newline(depth, into: &output) }
            output.append(UInt8(ascii: "]"))
        case .object(let values):
            output.append(UInt8(ascii: "{"))
            for (index, name) in values.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1, into: &output)
                writeString(name, into: &output)
                output.append(contentsOf: (prettyPrinted ? " : " : ":").utf8)
                do throws(Failure) {
                    // The name comes from the dictionary's own keys: it is there.
                    try write(values[name]!, depth: depth + 1, into: &output)
                } catch {
                    throw error.inside(.name(name))
                }
            }
            if !values.isEmpty { newline(depth, into: &output) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private func writeDouble(_ number: Double, into output: inout [UInt8]) throws(Failure) {
        guard number.isFinite else {
            guard writesNonFiniteNumbers else { throw Failure(.nonFiniteNumber) }
            output.append(contentsOf: (number.isNaN ? "NaN" : number < 0 ? "-Infinity" : "Infinity").utf8)
            return
        }
        if writesWholeDoublesAsIntegers, number.rounded() == number, abs(number) < 9_007_199_254_740_992 {
            output.append(contentsOf: String(Int64(number)).utf8)
        } else {
            // Swift's description of a finite double is a JSON number (`2.0`, `1e-05`, `-0.0`).
            output.append(contentsOf: String(number).utf8)
        }
    }

    private func newline(_ depth: Int, into output: inout [UInt8]) {
        guard prettyPrinted else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// RFC 8259 §7: `"` and `\` escaped, control characters as short escapes or `\u00XX`,
    /// everything else (all of Unicode) as its UTF-8 bytes.
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
                output.append(contentsOf: "\\u00".utf8)
                output.append(Self.hexDigits[Int(byte >> 4)])
                output.append(Self.hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

/// A value ``JSONWriter`` can write: it says which JSON form it has, one level at a time.
protocol JSONWritable {
    var jsonForm: JSONForm<Self> { get }
}

/// One level of a ``JSONWritable`` value.
enum JSONForm<Element: JSONWritable> {
    case object([String: Element])
    case array([Element])
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    /// What JSON has no form for.
    case unwritable(JSONWriter.Failure.Kind)
}

extension JSONValue: JSONWritable {
    var jsonForm: JSONForm<JSONValue> {
        switch self {
        case .object(let members): .object(members)
        case .array(let elements): .array(elements)
        case .string(let text): .string(text)
        case .int(let number): .int(number)
        case .double(let number): .double(number)
        case .bool(let truth): .bool(truth)
        case .null: .null
        }
    }
}

extension ParameterValue: JSONWritable {
    var jsonForm: JSONForm<ParameterValue> {
        switch self {
        case .dictionary(let members): .object(members)
        case .array(let elements): .array(elements)
        case .string(let text): .string(text)
        case .int(let number): .int(number)
        case .double(let number): .double(number)
        case .bool(let truth): .bool(truth)
        case .null: .null
        case .set: .unwritable(.set)
        }
    }
}
