import FerryBase
import FerryIO
import FerryWire
import HTTPTypes

/// Asks an HTTP proxy to open a tunnel to an origin (CONNECT, RFC 9110 §9.3.6) on a fresh
/// connection to the proxy, before any TLS or request byte for the origin goes out.
///
/// Sends `CONNECT host:port HTTP/1.1` with `Host` and the proxy's fields (never
/// `Proxy-Connection`), then reads the answer's head. A 2xx makes the connection a tunnel; any
/// other status fails with the proxy's head (a 407 carries its challenge), and the connection
/// is closed. Confined to its loop. Ends exactly once through `completion`: with the socket,
/// deregistered, or with an error after closing it.
final class ProxyTunnel: IOHandler {
    private static let readSize = 4096

    private let loop: EventLoop
    private let socket: Socket
    private let proxy: TunnelProxy
    private var output: [UInt8] = []
    private var written = 0
    private var parser: ResponseParser
    private var completion: ((Result<Socket, EngineError>) -> Void)?
    private var timer: TimerID?
    private var interest: IOEvents = []
    private var isFinished = false

    /// Prepares CONNECT for `host`:`port` through `proxy` on `socket`, a connection to the proxy.
    init(loop: EventLoop, socket: Socket, proxy: TunnelProxy, host: String, port: Int, parserLimits: ParserLimits) {
        self.loop = loop
        self.socket = socket
        self.proxy = proxy
        self.parser = ResponseParser(limits: parserLimits)
        self.target = HostName.authority(host, port: port)
    }

    /// `host:port`, the request target and `Host` of CONNECT (RFC 9112 §3.2.3).
    private let target: String

    /// Sends CONNECT; `deadline` bounds the proxy's answer (the connect timeout's rest).
    func start(deadline: Deadline, completion: @escaping (Result<Socket, EngineError>) -> Void) {
        self.completion = completion
        let head = RequestHead(method: .connect, target: target, host: target, headerFields: proxy.connectFields)
        do throws(RequestEncodingError) {
            try RequestEncoder.encodeHead(head, into: &output)
        } catch {
            return finish(.failure(EngineError(.invalidRequest(error))))
        }
        parser.expectResponse(to: .connect)
        timer = loop.scheduleTimer(at: deadline) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.fail(.timedOut)
        }
        do throws(SystemError) {
            try loop.register(fd: socket.fd, interest: .write, handler: self)
            interest = .write
        } catch {
            return fail(.socketFailed(error))
        }
        writable()
    }

    /// Gives up (the waiting exchange left, or the pool shut down); nothing is reported.
    func cancel() {
        completion = nil
        finish(.failure(EngineError(.cancelled)))
    }

    // MARK: - IOHandler

    func writable() {
        guard completion != nil, written < output.count else { return }
        do throws(SystemError) {
            while written < output.count {
                let result = try output.withUnsafeBytes { bytes in
                    Result { () throws(SystemError) in try socket.write(UnsafeRawBufferPointer(rebasing: bytes[written...])) }
                }.get()
                guard case .processed(let count) = result else { return }
                written += count
            }
        } catch {
            return fail(.socketFailed(error))
        }
        setInterest(.read)
    }

    func readable() {
        guard completion != nil else { return }
        var buffer = [UInt8](repeating: 0, count: Self.readSize)
        while completion != nil {
            let result: IOResult<Int>
            do throws(SystemError) {
                result = try buffer.withUnsafeMutableBytes { bytes in
                    Result { () throws(SystemError) in try socket.read(into: bytes) }
                }.get()
            } catch {
                return fail(.socketFailed(error))
            }
            switch result {
            case .wouldBlock: return
            case .processed(0): return fail(.closed)
            case .processed(let count): parse(buffer[..<count])
            }
        }
    }

    func hangup() {
        readable()
    }

    // MARK: - Steps

    private func parse(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { input in
            var index = 0
            do throws(HTTPParseError) {
                guard case .head(let head) = try parser.parse(input, from: &index) else { return }
                guard (200..<300).contains(head.status.code) else { return fail(.refused(head)) }
                // The origin has not been spoken to: nothing may come through the tunnel yet.
                guard index == input.count else { return fail(.unexpectedData) }
                finish(.success(socket))
            } catch {
                fail(.malformedAnswer(error))
            }
        }
    }

    private func fail(_ reason: ProxyFailure.Reason) {
        finish(.failure(EngineError(.proxyFailed(ProxyFailure(proxyHost: proxy.host, proxyPort: proxy.port, reason)))))
    }

    private func finish(_ result: Result<Socket, EngineError>) {
        guard !isFinished else { return }
        isFinished = true
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        let failed: Bool
        if case .failure = result { failed = true } else { failed = false }
        loop.deregister(fd: socket.fd, closing: failed)
        interest = []
        if failed { socket.close() }
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }

    private func setInterest(_ new: IOEvents) {
        guard new != interest, completion != nil else { return }
        interest = new
        do throws(SystemError) {
            try loop.modify(fd: socket.fd, interest: new)
        } catch {
            fail(.socketFailed(error))
        }
    }
}
