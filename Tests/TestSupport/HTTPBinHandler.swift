// HTTPBinServer's per-connection handler: collects requests, streams /echo, and writes route
// responses with NIO backpressure (large bodies), timers (delay, drip) and close rules.
import NIOCore
import NIOHTTP1

/// Internal: one per connection, on its event loop. `HTTPServerPipelineHandler` in front of it
/// guarantees one request at a time, so per-request state is plain properties.
final class HTTPBinHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A pattern body still being written.
    private struct PatternStream {
        var offset: Int
        var remaining: Int
        let chunkSize: Int
    }

    private let recorder: HTTPBinRecorder
    private let scheme: String
    private let fallbackHost: String
    private var request: HTTPBinRequest?
    private var isEchoing = false
    private var stream: PatternStream?
    private var closeWhenDone = false
    private var timers: [Scheduled<Void>] = []
    /// The recorder was told this connection ended (once, whichever way it did).
    private var reportedClosed = false

    init(recorder: HTTPBinRecorder, scheme: String, fallbackHost: String) {
        self.recorder = recorder
        self.scheme = scheme
        self.fallbackHost = fallbackHost
    }

    // MARK: - Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            recorder.requestReceived(head)
            let origin = context.channel.remoteAddress?.ipAddress ?? "127.0.0.1"
            request = HTTPBinRequest(head: head, scheme: scheme, origin: origin)
            closeWhenDone = !head.isKeepAlive
            // RFC 9110 §10.1.1: answer 100 (Continue) so a client waiting for it sends the body.
            if head.headers.first(name: "expect")?.lowercased() == "100-continue" {
                let interim = HTTPResponseHead(version: head.version, status: .continue)
                context.writeAndFlush(wrapOutboundOut(.head(interim)), promise: nil)
            }
            if request?.path == "/echo" && head.method != .HEAD { startEcho(context: context, head: head) }
        case .body(let buffer):
            if isEchoing {
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            }
            request?.append(buffer)
        case .end:
            if isEchoing {
                isEchoing = false
                finish(context: context)
            } else if let request {
                send(HTTPBinRouter.response(for: request, fallbackHost: fallbackHost), context: context)
            }
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if stream != nil && context.channel.isWritable { pump(context: context) }
        context.fireChannelWritabilityChanged()
    }

    /// The client's FIN: with half-closure allowed the channel stays open for the response,
    /// but the connection has ended for the client.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { reportClosed() }
        context.fireUserInboundEventTriggered(event)
    }

    private func reportClosed() {
        guard !reportedClosed else { return }
        reportedClosed = true
        recorder.connectionClosed()
    }

    func channelInactive(context: ChannelHandlerContext) {
        reportClosed()
        for timer in timers { timer.cancel() }
        timers.removeAll()
        stream = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: - Echo

    /// Answers at once and streams each body part back: Content-Length when the request had
    /// one, else chunked. Outbound bytes are buffered by NIO if the client reads slowly (never
    /// more than the request body), so a client that sends its whole body first cannot deadlock.
    private func startEcho(context: ChannelHandlerContext, head: HTTPRequestHead) {
        isEchoing = true
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: head.headers.first(name: "content-type") ?? "application/octet-stream")
        let isChunked = head.headers.first(name: "transfer-encoding")?.lowercased().contains("chunked") ?? false
        if let length = head.headers.first(name: "content-length"), !isChunked {
            headers.add(name: "Content-Length", value: length)
        } else {
            headers.add(name: "Transfer-Encoding", value: "chunked")
        }
        if closeWhenDone { headers.add(name: "Connection", value: "close") }
        let response = HTTPResponseHead(version: head.version, status: .ok, headers: headers)
        context.writeAndFlush(wrapOutboundOut(.head(response)), promise: nil)
    }

    // MARK: - Route responses

    private func send(_ response: HTTPBinResponse, context: ChannelHandlerContext) {
        guard response.delay > .zero else { return start(response, context: context) }
        schedule(in: response.delay, context: context) { handler in handler.start(response, context: context) }
    }

    private func start(_ response: HTTPBinResponse, context: ChannelHandlerContext) {
        guard let request else { return }
        var headers = response.headers
        let mayHaveBody = response.status != .noContent && response.status != .notModified
        switch response.body {
        case .none:
            if mayHaveBody { headers.add(name: "Content-Length", value: "0") }
        case .bytes(let bytes):
            headers.add(name: "Content-Length", value: String(bytes.count))
        case .pattern(_, let count, _, let chunked):
            if chunked {
                headers.add(name: "Transfer-Encoding", value: "chunked")
            } else {
                headers.add(name: "Content-Length", value: String(count))
            }
        case .drip(let count, _):
            headers.add(name: "Content-Length", value: String(count))
        case .untilClose:
            closeWhenDone = true  // RFC 9112 §6.3 rule 8: the body ends at close
        }
        if response.closeAfter { closeWhenDone = true }
        if closeWhenDone { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: request.head.version, status: response.status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if request.isHEAD { return finish(context: context) }

        switch response.body {
        case .none:
            finish(context: context)
        case .bytes(let bytes), .untilClose(let bytes):
            if !bytes.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
            }
            finish(context: context)
        case .pattern(let offset, let count, let chunkSize, _):
            stream = PatternStream(offset: offset, remaining: count, chunkSize: chunkSize)
            pump(context: context)
        case .drip(let count, let interval):
            context.flush()
            drip(position: 0, remaining: count, interval: interval, context: context)
        }
    }

    /// Writes pattern chunks while the channel is writable; resumes on writability changes, so
    /// a 100 MiB body never sits in memory (the write buffer's high-water mark bounds it).
    private func pump(context: ChannelHandlerContext) {
        while var current = stream, current.remaining > 0, context.channel.isWritable {
            let size = min(current.chunkSize, current.remaining)
            let buffer = Self.patternBuffer(offset: current.offset, count: size, allocator: context.channel.allocator)
            current.offset += size
            current.remaining -= size
            stream = current
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        context.flush()
        if let current = stream, current.remaining == 0 {
            stream = nil
            finish(context: context)
        }
    }

    private func drip(position: Int, remaining: Int, interval: TimeAmount, context: ChannelHandlerContext) {
        guard remaining > 0 else { return finish(context: context) }
        let byte = ByteBuffer(bytes: [TestBytes.byte(at: position)])
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(byte))), promise: nil)
        if remaining == 1 { return finish(context: context) }
        schedule(in: interval, context: context) { handler in
            handler.drip(position: position + 1, remaining: remaining - 1, interval: interval, context: context)
        }
    }

    /// Ends the response; closes afterwards when the request or the route asked for it.
    private func finish(context: ChannelHandlerContext) {
        let close = closeWhenDone
        request = nil
        timers.removeAll()
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if close {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    private func schedule(
        in delay: TimeAmount, context: ChannelHandlerContext, _ body: @escaping (HTTPBinHandler) -> Void
    ) {
        let timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { body(self) }
        timers.append(timer)
    }

    // MARK: - Pattern bytes

    /// The pattern from position 0 to 251 + 64 KiB: any chunk of up to 64 KiB at any offset is
    /// one slice of it.
    private static let patternTable = TestBytes.pattern(count: TestBytes.period + 64 * 1024)

    private static func patternBuffer(offset: Int, count: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: count)
        var position = offset
        var left = count
        while left > 0 {
            let start = position % TestBytes.period
            let take = min(left, 64 * 1024)
            buffer.writeBytes(patternTable[start..<(start + take)])
            position += take
            left -= take
        }
        return buffer
    }
}
