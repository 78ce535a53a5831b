// One client connection of ForwardProxy, on a thread of its own: reads requests, answers the
// ones the proxy refuses itself, forwards the others and opens CONNECT tunnels.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Internal: serves one accepted client socket until the client closes or asks to, a
/// response needs the close, an exchange fails, or the proxy shuts down.
struct ProxyConnection {
    /// What becomes of the client connection after one exchange.
    enum Next: Equatable {
        /// Read the next request.
        case keepOpen
        /// Close the connection.
        case close
    }

    /// Fields that describe one connection rather than the message (RFC 9110 §7.6.1, plus
    /// RFC 2616's list and the proxy's own): never passed on, in either direction.
    static let hopByHop: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "te", "trailer", "upgrade",
        "proxy-authorization", "proxy-authenticate",
    ]

    /// The most interim (1xx) responses relayed before a final one.
    static let interimLimit = 16

    private let core: ForwardProxyCore
    private var client: ProxyPeer

    init(core: ForwardProxyCore, fd: Int32) {
        self.core = core
        client = ProxyPeer(socket: BufferedSocket(fd: fd, wake: core.wakeRead, timeout: core.settings.ioTimeout), side: .client)
        Self.setNoDelay(fd)
    }

    /// Serves requests until the connection ends, then closes it.
    mutating func run() {
        defer {
            // Read what the client already sent, so that the close is a FIN, not an RST.
            client.socket.drainPending()
            Glibc.close(client.socket.fd)
        }
        while true {
            let head: ProxyRequestHead
            do {
                head = try ProxyRequestHead.read(
                    from: &client.socket, limit: core.settings.headLimit, maxFields: core.settings.maxFields)
            } catch .malformed(let why) {
                _ = answer(400, body: "malformed request head: \(why)\n", keepOpen: false, to: nil)
                return
            } catch {
                return
            }
            core.recordRequest(head)
            guard serve(head) == .keepOpen else { return }
        }
    }

    /// Answers or forwards one request.
    private mutating func serve(_ head: ProxyRequestHead) -> Next {
        let isConnect = head.method == "CONNECT"
        let framing: ProxyBodyFraming
        do {
            framing = try head.bodyFraming()
        } catch {
            return answer(400, body: "\(error.reason)\n", keepOpen: false, to: head)
        }
        let target: ProxyTarget
        switch isConnect ? ProxyTarget.authorityForm(head.target) : ProxyTarget.absoluteForm(head.target) {
        case .success(let parsed): target = parsed
        case .failure(let error): return answer(400, body: "\(error.reason)\n", keepOpen: false, to: head)
        }
        if isConnect && framing != .none {
            return answer(400, body: "a CONNECT request has no body\n", keepOpen: false, to: head)
        }
        if case .challenge(let values) = core.authenticator.decide(head, originForm: isConnect ? nil : target.originForm) {
            return answer(
                407, headers: values.map { ("Proxy-Authenticate", $0) }, body: "proxy authentication required\n",
                keepOpen: consumeBody(of: head, framing), to: head)
        }
        if isConnect, let refusal = core.settings.refusal {
            return answer(refusal.status, body: refusal.body, keepOpen: false, to: head)
        }
        guard !target.loopbackAddresses.isEmpty else {
            let body = "the test proxy connects only to 127.0.0.1, ::1 and localhost, not \(target.host)\n"
            return answer(403, body: body, keepOpen: consumeBody(of: head, framing), to: head)
        }
        guard let originFD = connect(to: target) else {
            return answer(
                502, body: "cannot connect to \(target.hostAndPort)\n", keepOpen: consumeBody(of: head, framing), to: head)
        }
        defer { Glibc.close(originFD) }
        if isConnect { return tunnel(head, to: target, through: originFD) }
        return forward(head, to: target, framing: framing, through: originFD)
    }

    // MARK: - Tunnels

    /// Answers 200 and relays bytes both ways until the tunnel ends; the connection then closes.
    private mutating func tunnel(_ head: ProxyRequestHead, to target: ProxyTarget, through originFD: Int32) -> Next {
        core.recordTunnel(target.hostAndPort)
        do {
            try client.write(Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
            let early = try client.read(exactly: client.socket.buffered.count)
            ProxyTunnel(client: client.socket.fd, origin: originFD, wake: core.wakeRead, idleTimeout: core.settings.ioTimeout)
                .run(early: early)
        } catch {}
        return .close
    }

    // MARK: - Forwarding

    /// Forwards one request to the origin on `originFD` and relays its response.
    private mutating func forward(
        _ head: ProxyRequestHead, to target: ProxyTarget, framing: ProxyBodyFraming, through originFD: Int32
    ) -> Next {
        var origin = ProxyPeer(socket: BufferedSocket(fd: originFD, wake: core.wakeRead, timeout: core.settings.ioTimeout), side: .origin)
        var keepOpen = head.keepsAlive
        var responseStarted = false
        do throws(ProxyRelayFailure) {
            try origin.write(Self.originRequestHead(head, target: target))
            var response: MessageHead?
            if framing != .none {
                if head.expectsContinue, try originAnswers(&origin) {
                    let first = try origin.readHead(limit: core.settings.headLimit)
                    if try Self.status(of: first, from: origin) / 100 == 1 {
                        try relayInterim(first)
                    } else {
                        // A final answer before the body: whether the client sends it is unknown.
                        response = first
                        keepOpen = false
                    }
                }
                if response == nil { try ProxyRelay.body(framing, from: &client, to: &origin) }
            }
            var interims = 0
            while response == nil {
                let next = try origin.readHead(limit: core.settings.headLimit)
                let status = try Self.status(of: next, from: origin)
                guard status / 100 == 1, status != 101 else {
                    response = next
                    break
                }
                interims += 1
                guard interims <= Self.interimLimit else { throw origin.malformed("more than \(Self.interimLimit) interim responses") }
                try relayInterim(next)
            }
            guard let response else { return .close }
            let responseFraming = try Self.responseFraming(response, request: head, from: origin)
            if responseFraming == .untilClose || Self.status(response) == 101 { keepOpen = false }
            responseStarted = true
            try client.write(Self.clientResponseHead(response, keepOpen: keepOpen, request: head))
            try ProxyRelay.body(responseFraming, from: &origin, to: &client)
            return keepOpen ? .keepOpen : .close
        } catch {
            guard !responseStarted, error.side == .origin, error.failure != .woken else { return .close }
            let status = error.failure == .timedOut ? 504 : 502
            return answer(status, body: "origin \(target.hostAndPort): \(error.failure)\n", keepOpen: false, to: head)
        }
    }

    /// After a head with `Expect: 100-continue`: whether the origin answers within the
    /// continue timeout (else the body is sent anyway, as curl does).
    private func originAnswers(_ origin: inout ProxyPeer) throws(ProxyRelayFailure) -> Bool {
        if !origin.socket.buffered.isEmpty { return true }
        switch POSIXSocket.wait(fd: origin.socket.fd, events: Int16(POLLIN), wake: core.wakeRead, timeout: core.settings.continueTimeout) {
        case .ready: return true
        case .timedOut: return false
        case .woken: throw ProxyRelayFailure(side: .origin, failure: .woken)
        }
    }

    /// Passes an interim (1xx) response head on to the client.
    private mutating func relayInterim(_ head: MessageHead) throws(ProxyRelayFailure) {
        var text = head.startLine + "\r\n"
        for (name, value) in Self.endToEnd(head.fields) { text += "\(name): \(value)\r\n" }
        try client.write(Array((text + "\r\n").utf8))
    }

    /// Opens a connection to the first loopback address of `target` that accepts.
    private func connect(to target: ProxyTarget) -> Int32? {
        core.recordConnectAttempt(target.hostAndPort)
        for address in target.loopbackAddresses {
            if let fd = try? POSIXSocket.connect(host: address, port: target.port, timeout: core.settings.ioTimeout) {
                Self.setNoDelay(fd)
                return fd
            }
        }
        return nil
    }

    // MARK: - Answers of the proxy's own

    /// Before the proxy answers a request itself: whether the connection can stay open, having
    /// consumed the request's body. Not when the client asked to close, waits for a
    /// `100 Continue` (it may or may not send the body now), or the body cannot be read.
    private mutating func consumeBody(of head: ProxyRequestHead, _ framing: ProxyBodyFraming) -> Bool {
        guard head.keepsAlive else { return false }
        if framing == .none { return true }
        if head.expectsContinue { return false }
        do {
            try ProxyRelay.discard(framing, from: &client)
            return true
        } catch {
            return false
        }
    }

    /// Writes a small text/plain response; `Connection: close` when `keepOpen` is false.
    /// - Returns: `.keepOpen` only when `keepOpen` and the write succeeded.
    private mutating func answer(
        _ status: Int, headers: [(String, String)] = [], body: String, keepOpen: Bool, to request: ProxyRequestHead?
    ) -> Next {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
        if !keepOpen {
            text += "Connection: close\r\n"
        } else if request?.version == "HTTP/1.0" {
            text += "Connection: keep-alive\r\n"
        }
        text += "\r\n"
        if request?.method != "HEAD" { text += body }
        do {
            try client.write(Array(text.utf8))
        } catch {
            return .close
        }
        return keepOpen ? .keepOpen : .close
    }
}

extension ProxyConnection {
    /// The head sent to the origin: origin-form target, `Host` from the request target (RFC
    /// 9112 §3.2.2, in the place of the client's `Host`), hop-by-hop fields left out.
    static func originRequestHead(_ head: ProxyRequestHead, target: ProxyTarget) -> [UInt8] {
        var fields: [(name: String, value: String)] = []
        var hostWritten = false
        for field in endToEnd(head.fields) {
            if field.name.lowercased() == "host" {
                if !hostWritten { fields.append((field.name, target.authority)) }
                hostWritten = true
            } else {
                fields.append(field)
            }
        }
        if !hostWritten { fields.insert(("Host", target.authority), at: 0) }
        var text = "\(head.method) \(target.originForm) \(head.version)\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// The response head sent to the client: the origin's status line and end-to-end fields
    /// (without `Content-Length` when `Transfer-Encoding` overrides it, RFC 9112 §6.3), then
    /// `Connection: close` when the client connection ends after this response.
    static func clientResponseHead(_ head: MessageHead, keepOpen: Bool, request: ProxyRequestHead) -> [UInt8] {
        var text = head.startLine + "\r\n"
        let hasCoding = head.value(of: "transfer-encoding") != nil
        for (name, value) in endToEnd(head.fields) where !(hasCoding && name.lowercased() == "content-length") {
            text += "\(name): \(value)\r\n"
        }
        if !keepOpen {
            text += "Connection: close\r\n"
        } else if request.version == "HTTP/1.0" {
            text += "Connection: keep-alive\r\n"
        }
        return Array((text + "\r\n").utf8)
    }

    /// `fields` without the hop-by-hop ones and those their `Connection` fields name.
    static func endToEnd(_ fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let named = fields.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.split(separator: ",") }.map { String($0).trimmingSpaces.lowercased() }
        let dropped = hopByHop.union(named)
        return fields.filter { !dropped.contains($0.name.lowercased()) }
    }

    /// How the response body is delimited (RFC 9112 §6.3).
    static func responseFraming(
        _ head: MessageHead, request: ProxyRequestHead, from origin: ProxyPeer
    ) throws(ProxyRelayFailure) -> ProxyBodyFraming {
        let status = Self.status(head)
        if request.method == "HEAD" || status / 100 == 1 || status == 204 || status == 304 { return .none }
        if head.value(of: "transfer-encoding") != nil { return head.isChunked ? .chunked : .untilClose }
        let lengths = head.fields.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        guard let first = lengths.first else { return .untilClose }
        guard lengths.allSatisfy({ $0 == first }), first.count <= 18, !first.isEmpty,
              first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(first) else {
            throw origin.malformed("bad Content-Length '\(first)'")
        }
        return .length(length)
    }

    /// The status code of a response head, or a failure of the origin when there is none.
    static func status(of head: MessageHead, from origin: ProxyPeer) throws(ProxyRelayFailure) -> Int {
        let status = Self.status(head)
        guard status >= 100, status <= 999 else { throw origin.malformed("bad status line '\(head.startLine)'") }
        return status
    }

    /// The status code of `HTTP/1.x NNN …`, or 0.
    static func status(_ head: MessageHead) -> Int {
        let parts = head.startLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3 else { return 0 }
        return Int(parts[1]) ?? 0
    }

    /// The reason phrase for the statuses the proxy sends itself.
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 407: "Proxy Authentication Required"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Refused"
        }
    }

    /// Turns off Nagle's algorithm: heads, chunks and bodies go out as separate small writes.
    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}

extension ProxyRequestHead.Failure {
    /// The text for a 400's body.
    var reason: String {
        switch self {
        case .ended: "the request ended early"
        case .malformed(let why): why
        }
    }
}
