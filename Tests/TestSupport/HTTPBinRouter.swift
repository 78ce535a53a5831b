// HTTPBinServer's routes: path → response. Pure: no channel, no clock.
import Foundation
import NIOCore
import NIOHTTP1

/// Internal: the route table of ``HTTPBinServer`` (its doc comment lists the routes).
enum HTTPBinRouter {
    /// Upper bounds that keep every route bounded in memory and time.
    enum Limits {
        static let patternBytes = 1 << 30  // /bytes, /stream-bytes, /large, /range, /chunked, /no-length
        static let gzipBytes = 64 << 20  // /gzip-bytes (compressed in memory)
        static let bombBytes = 4 << 30  // /gzip-bomb (zeros, compressed in slices)
        static let dripBytes = 100_000
        static let seconds = 60.0  // /delay, /drip duration and delay
        static let redirects = 1000
    }

    /// The response for a complete request. `fallbackHost` is the server's `host:port`.
    static func response(for request: HTTPBinRequest, fallbackHost: String) -> HTTPBinResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        let method = request.method
        switch parts.first ?? "" {
        case "":
            return .text("HTTPBinServer (Ferry TestSupport)\n", status: .ok)
        case "get" where parts.count == 1:
            return echo(request, fallbackHost, allowed: [.GET, .HEAD])
        case "post" where parts.count == 1:
            return echo(request, fallbackHost, allowed: [.POST])
        case "put" where parts.count == 1:
            return echo(request, fallbackHost, allowed: [.PUT])
        case "patch" where parts.count == 1:
            return echo(request, fallbackHost, allowed: [.PATCH])
        case "delete" where parts.count == 1:
            return echo(request, fallbackHost, allowed: [.DELETE])
        case "anything":
            return .json(HTTPBinJSON.echo(request, fallbackHost: fallbackHost))
        case "echo" where parts.count == 1:
            // Reached only for HEAD: other methods stream through HTTPBinHandler.
            var response = HTTPBinResponse(status: .ok, body: .bytes(request.body))
            let type = request.header("content-type") ?? "application/octet-stream"
            response.headers.add(name: "Content-Type", value: type)
            return response
        case "headers" where parts.count == 1:
            return .json(["headers": HTTPBinJSON.headers(request)])
        case "ip" where parts.count == 1:
            return .json(["origin": request.origin])
        case "user-agent" where parts.count == 1:
            return .json(["user-agent": request.header("user-agent") ?? ""])
        case "status" where parts.count == 2:
            return status(parts[1])
        case "response-headers" where parts.count == 1:
            return responseHeaders(request)
        case "redirect" where parts.count == 2, "relative-redirect" where parts.count == 2:
            return redirect(parts[1]) { $0 == 0 ? "/get" : "/\(parts[0])/\($0)" }
        case "absolute-redirect" where parts.count == 2:
            let base = "\(request.scheme)://\(request.authority(fallbackHost: fallbackHost))"
            return redirect(parts[1]) { $0 == 0 ? "\(base)/get" : "\(base)/absolute-redirect/\($0)" }
        case "redirect-to" where parts.count == 1:
            return redirectTo(request)
        case "basic-auth" where parts.count == 3:
            return basicAuth(request, user: parts[1], password: parts[2])
        case "digest-auth":
            return digestAuth(request, parts: parts)
        case "cookies":
            return cookies(request, action: parts.count > 1 ? parts[1] : nil)
        case "delay" where parts.count == 2:
            guard let seconds = Double(parts[1]), seconds >= 0, seconds <= Limits.seconds else {
                return .badRequest("delay must be 0...\(Limits.seconds) seconds")
            }
            var response = HTTPBinResponse.json(HTTPBinJSON.echo(request, fallbackHost: fallbackHost))
            response.delay = timeAmount(seconds)
            return response
        case "close" where parts.count == 1:
            var response = HTTPBinResponse.json(HTTPBinJSON.echo(request, fallbackHost: fallbackHost))
            response.closeAfter = true
            return response
        default:
            return payloadResponse(for: request, parts: parts, method: method, fallbackHost: fallbackHost)
                ?? .text("Not Found: \(request.path)\n", status: .notFound)
        }
    }

    // MARK: - Echo, status, headers

    private static func echo(
        _ request: HTTPBinRequest, _ fallbackHost: String, allowed: [HTTPMethod]
    ) -> HTTPBinResponse {
        guard allowed.contains(request.method) else {
            var response = HTTPBinResponse.text("Method Not Allowed\n", status: .methodNotAllowed)
            response.headers.add(name: "Allow", value: allowed.map(\.rawValue).joined(separator: ", "))
            return response
        }
        return .json(HTTPBinJSON.echo(request, fallbackHost: fallbackHost))
    }

    private static func status(_ text: String) -> HTTPBinResponse {
        guard let code = Int(text), (200...599).contains(code) else {
            return .badRequest("status must be 200...599")
        }
        var response = HTTPBinResponse(status: HTTPResponseStatus(statusCode: code))
        switch code {
        case 301, 302, 303, 305, 307, 308:
            response.headers.add(name: "Location", value: "/redirect/1")
        case 401:
            response.headers.add(name: "WWW-Authenticate", value: "Basic realm=\"Fake Realm\"")
        case 407:
            response.headers.add(name: "Proxy-Authenticate", value: "Basic realm=\"Fake Realm\"")
        default:
            break
        }
        return response
    }

    private static func responseHeaders(_ request: HTTPBinRequest) -> HTTPBinResponse {
        var response = HTTPBinResponse.json(HTTPBinJSON.group(request.query))
        for (name, value) in request.query {
            // Framing stays the server's job; ScriptedServer is the place for lying framing.
            let lower = name.lowercased()
            if lower == "content-length" || lower == "transfer-encoding" { continue }
            response.headers.add(name: name, value: value)
        }
        return response
    }

    // MARK: - Redirects

    private static func redirect(_ text: String, next: (Int) -> String) -> HTTPBinResponse {
        guard let count = Int(text), (1...Limits.redirects).contains(count) else {
            return .badRequest("redirect count must be 1...\(Limits.redirects)")
        }
        return .redirect(to: next(count - 1))
    }

    private static func redirectTo(_ request: HTTPBinRequest) -> HTTPBinResponse {
        guard let url = request.queryValue("url") else { return .badRequest("url is required") }
        var code = request.queryInt("status_code", default: 302) ?? 302
        if !(300..<400).contains(code) { code = 302 }
        return .redirect(to: url, status: HTTPResponseStatus(statusCode: code))
    }

    // MARK: - Authentication and cookies

    private static func basicAuth(_ request: HTTPBinRequest, user: String, password: String) -> HTTPBinResponse {
        let expected = Data("\(user):\(password)".utf8).base64EncodedString()
        let given = request.header("authorization") ?? ""
        let scheme = given.prefix(6).lowercased()
        if scheme == "basic ", String(given.dropFirst(6)).trimmingSpaces == expected {
            return .json(["authenticated": true, "user": user])
        }
        var response = HTTPBinResponse(status: .unauthorized)
        response.headers.add(name: "WWW-Authenticate", value: "Basic realm=\"Fake Realm\"")
        return response
    }

    private static func cookies(_ request: HTTPBinRequest, action: String?) -> HTTPBinResponse {
        switch action {
        case nil:
            var cookies: [String: String] = [:]
            for field in request.head.headers["cookie"] {
                for pair in field.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    let name = String(parts[0]).trimmingSpaces
                    if !name.isEmpty { cookies[name] = parts.count > 1 ? String(parts[1]).trimmingSpaces : "" }
                }
            }
            return .json(["cookies": cookies])
        case "set"?:
            var response = HTTPBinResponse.redirect(to: "/cookies")
            for (name, value) in request.query {
                response.headers.add(name: "Set-Cookie", value: "\(name)=\(value); Path=/")
            }
            return response
        case "delete"?:
            var response = HTTPBinResponse.redirect(to: "/cookies")
            for (name, _) in request.query {
                response.headers.add(
                    name: "Set-Cookie", value: "\(name)=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/")
            }
            return response
        default:
            return .text("Not Found: \(request.path)\n", status: .notFound)
        }
    }

    /// Seconds as a NIO `TimeAmount`.
    static func timeAmount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(seconds * 1_000_000_000))
    }
}
