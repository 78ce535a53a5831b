/// AFNetworking's query-string rules (`AFQueryStringFromParameters`), exactly: what
/// `HTTPRequestSerializer` puts in a URL for GET, HEAD and DELETE and in an
/// `application/x-www-form-urlencoded` body otherwise. Pure.
///
/// - A dictionary's names go in ascending order, nested ones as `key[name]`;
/// - an array's values go in order, each as `key[]`;
/// - a set's values go sorted, each under the bare `key`;
/// - ``ParameterValue/null`` is the bare key, with no `=`;
/// - names and values are percent-escaped as UTF-8 with RFC 3986's query characters less
///   `:#[]@!$&'()*+,;=` (so `?` and `/` stay, and `key[name]` is sent `key%5Bname%5D`), which
///   never splits a character: escaping works on whole UTF-8 sequences.
public enum QueryStringSerialization {
    /// `parameters` as a query string: `a=1&b%5Bc%5D=2`, without a leading `?`.
    public static func queryString(from parameters: Parameters) -> String {
        pairs(from: parameters).map { pair in
            let name = percentEscaped(pair.name)
            guard let value = pair.value else { return name }
            return name + "=" + percentEscaped(value)
        }.joined(separator: "&")
    }

    /// The name/value pairs of `parameters`, before escaping, in the order they are written
    /// (a nil value writes the bare name).
    public static func pairs(from parameters: Parameters) -> [(name: String, value: String?)] {
        var pairs: [(name: String, value: String?)] = []
        for name in parameters.keys.sorted() {
            append(parameters[name]!, named: name, to: &pairs)
        }
        return pairs
    }

    private static func append(_ value: ParameterValue, named name: String, to pairs: inout [(name: String, value: String?)]) {
        switch value {
        case .dictionary(let values):
            for key in values.keys.sorted() {
                append(values[key]!, named: "\(name)[\(key)]", to: &pairs)
            }
        case .array(let values):
            for element in values {
                append(element, named: "\(name)[]", to: &pairs)
            }
        case .set(let values):
            for element in values.sorted(by: { $0.description < $1.description }) {
                append(element, named: name, to: &pairs)
            }
        case .null:
            pairs.append((name, nil))
        case .string, .int, .double, .bool:
            pairs.append((name, value.description))
        }
    }

    /// `text` percent-escaped for a query name or value, as AFNetworking's
    /// `AFPercentEscapedStringFromString`: letters, digits, `-._~`, `/` and `?` stay; every
    /// other byte of its UTF-8 form becomes `%XX` (upper-case hex).
    public static func percentEscaped(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isAllowed(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    // RFC 3986's query characters (unreserved, sub-delims, ":", "@", "/", "?") less the
    // general delimiters and sub-delimiters AFNetworking removes: what is left is unreserved
    // plus "/" and "?".
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }
}
