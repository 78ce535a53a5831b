// httpbin-style JSON documents describing a request.
import Foundation

/// Internal: builds and encodes the JSON bodies of ``HTTPBinServer``'s echo routes.
enum HTTPBinJSON {
    /// Sorted-keys JSON with a trailing newline (`{}` if the object is not encodable).
    static func encode(_ object: [String: Any]) -> [UInt8] {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: options) else {
            return Array("{}\n".utf8)
        }
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// The echo document: `method`, `url`, `args`, `headers`, `data`, `json`, `form`,
    /// `origin`, `bodyLength`, `bodyTruncated`.
    static func echo(_ request: HTTPBinRequest, fallbackHost: String) -> [String: Any] {
        let contentType = request.header("content-type")?.lowercased() ?? ""
        var json: Any = NSNull()
        if contentType.contains("json"),
            let parsed = try? JSONSerialization.jsonObject(with: Data(request.body), options: [.fragmentsAllowed])
        {
            json = parsed
        }
        var form: [String: Any] = [:]
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            form = group(HTTPBinRequest.parseForm(String(decoding: request.body, as: UTF8.self)))
        }
        return [
            "method": request.method.rawValue,
            "url": request.absoluteURL(fallbackHost: fallbackHost),
            "args": group(request.query),
            "headers": headers(request),
            "data": text(request.body),
            "json": json,
            "form": form,
            "origin": request.origin,
            "bodyLength": request.bodyLength,
            "bodyTruncated": request.bodyLength > request.body.count,
        ]
    }

    /// The body as text when it is UTF-8, else as a base64 `data:` URL, as httpbin does.
    /// Never `String(decoding:)`: its repair throws (and is caught) once per invalid byte, and
    /// Swift Testing captures a backtrace for every throw in the process, which made an echo of
    /// a 10 KiB binary upload take seconds.
    static func text(_ body: [UInt8]) -> String {
        String(validating: body, as: UTF8.self)
            ?? "data:application/octet-stream;base64," + Data(body).base64EncodedString()
    }

    /// Header names Title-Cased as httpbin does (`user-agent` → `User-Agent`); repeated fields
    /// joined with `", "`. The exact wire names are in ``HTTPBinServer/receivedRequests``.
    static func headers(_ request: HTTPBinRequest) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in request.head.headers {
            let key = titleCase(name)
            result[key] = result[key].map { $0 + ", " + value } ?? value
        }
        return result
    }

    /// Name → value, or name → [values] when the name repeats (as httpbin does).
    static func group(_ pairs: [(name: String, value: String)]) -> [String: Any] {
        var values: [String: [String]] = [:]
        for (name, value) in pairs { values[name, default: []].append(value) }
        return values.mapValues { list -> Any in list.count == 1 ? list[0] : list }
    }

    private static func titleCase(_ name: String) -> String {
        name.split(separator: "-", omittingEmptySubsequences: false)
            .map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }
            .joined(separator: "-")
    }
}
