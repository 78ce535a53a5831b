// Sits between NIOSSLServerHandler and the HTTP decoder and tells TLSTestServer's recorder
// what happened: handshakes, their failures, and every decrypted byte that went upward.
import NIOCore
import NIOSSL
import NIOTLS

/// Internal: one per connection, on its event loop. Everything it reads is application data
/// (NIOSSL passes only decrypted records up), so its byte count is exactly what a client's
/// request could have delivered: zero after a client that refused the certificate.
final class TLSObservingHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let recorder: TLSRecorder
    private var index = -1
    private var handshakeDone = false

    init(recorder: TLSRecorder) {
        self.recorder = recorder
    }

    func handlerAdded(context: ChannelHandlerContext) {
        index = recorder.connectionOpened(remoteAddress: context.channel.remoteAddress.map(Self.text))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        recorder.received(unwrapInboundIn(data).readableBytes, on: index)
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let channelEvent = event as? ChannelEvent, channelEvent == .inputClosed {
            // The client's close_notify or FIN: nothing more can arrive on this connection.
            recorder.closed(index)
        }
        if case .handshakeCompleted(let negotiatedProtocol) = event as? TLSUserEvent {
            handshakeDone = true
            let tls = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
            let version = tls?.tlsVersion.flatMap(TLSServerConfiguration.Version.init)
            let peer = tls?.peerCertificate
            recorder.handshakeCompleted(index) { record in
                record.version = version
                record.negotiatedProtocol = negotiatedProtocol
                if let peer {
                    record.clientCertificateDER = try? peer.toDERBytes()
                    record.clientCertificateSubject = Self.rfc2253(peer.subjectName)
                }
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !handshakeDone, case .handshakeFailed = error as? NIOSSLError {
            handshakeDone = true  // one failure per connection, however many errors follow
            recorder.handshakeFailed(index, reason: String(describing: error))
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        recorder.closed(index)
        context.fireChannelInactive()
    }

    /// `127.0.0.1:54321` or `[::1]:54321`.
    private static func text(_ address: SocketAddress) -> String {
        let ip = address.ipAddress ?? "?"
        let port = address.port.map(String.init) ?? "?"
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }

    /// RFC 2253 text: attributes most specific first (the reverse of certificate order).
    private static func rfc2253(_ names: [SSLCertificateName]) -> String {
        names.reversed().map { "\(shortName($0.type))=\($0.value)" }.joined(separator: ",")
    }

    private static func shortName(_ type: SSLCertificateNameType) -> String {
        let known: [(SSLCertificateNameType, String)] = [
            (.commonName, "CN"), (.organization, "O"), (.organizationalUnit, "OU"), (.country, "C"),
            (.state, "ST"), (.city, "L"), (.emailAddress, "emailAddress"), (.userId, "UID"),
        ]
        return known.first { $0.0 == type }?.1 ?? "?"
    }
}
