import CFerryShims
import COpenSSL
import Foundation
@testable import FerryTLS

/// The server side of an in-memory TLS pair, straight on OpenSSL, for testing ``TLSConnection``
/// without sockets: bytes move between the two through ``pump(_:)``.
final class MemoryTLSServer {
    struct Options {
        var certificateFiles = ["leaf.pem", "intermediate-ca.pem"]
        var keyFile = "leaf.key"
        var maximumVersion: Int32 = 0
        var requiresClientCertificate = false
        var selectsHTTP11 = true
    }

    let context: OpaquePointer

    init(_ options: Options = Options()) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TestFailure("SSL_CTX_new") }
        self.context = context
        let certificates = try options.certificateFiles.flatMap { try Certificate.certificates(inFile: TestCertificates.url($0)) }
        guard let leaf = certificates.first?.makeX509(), SSL_CTX_use_certificate(context, leaf) == 1 else { throw TestFailure("leaf") }
        X509_free(leaf)
        for extra in certificates.dropFirst() {
            guard let x509 = extra.makeX509(), cferry_ssl_ctx_add1_chain_cert(context, x509) == 1 else { throw TestFailure("chain") }
            X509_free(x509)
        }
        let keyPEM = try TestCertificates.bytes(options.keyFile)
        let key = keyPEM.withUnsafeBytes { raw -> OpaquePointer? in
            let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count))
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key, SSL_CTX_use_PrivateKey(context, key) == 1 else { throw TestFailure("key") }
        EVP_PKEY_free(key)
        if options.maximumVersion != 0 { _ = cferry_ssl_ctx_set_max_proto(context, options.maximumVersion) }
        if options.requiresClientCertificate {
            let store = SSL_CTX_get_cert_store(context)
            for name in ["root-ca.pem", "intermediate-ca.pem"] {
                let x509 = try TestCertificates.certificate(String(name.dropLast(4))).makeX509()
                X509_STORE_add_cert(store, x509)
                X509_free(x509)
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        }
        if options.selectsHTTP11 {
            SSL_CTX_set_alpn_select_cb(context, { _, out, outLength, offered, offeredLength, _ in
                guard let offered, let out, let outLength else { return SSL_TLSEXT_ERR_NOACK }
                var index = 0
                while index < Int(offeredLength) {
                    let length = Int(offered[index])
                    let name = String(decoding: UnsafeBufferPointer(start: offered + index + 1, count: length), as: UTF8.self)
                    if name == "http/1.1" {
                        out.pointee = offered + index + 1
                        outLength.pointee = UInt8(length)
                        return SSL_TLSEXT_ERR_OK
                    }
                    index += 1 + length
                }
                return SSL_TLSEXT_ERR_NOACK
            }, nil)
        }
    }

    deinit { SSL_CTX_free(context) }

    /// One accepted connection.
    final class Peer {
        let ssl: OpaquePointer
        let inbound: OpaquePointer
        let outbound: OpaquePointer

        init(context: OpaquePointer) {
            ssl = SSL_new(context)!
            inbound = BIO_new(BIO_s_mem())!
            outbound = BIO_new(BIO_s_mem())!
            _ = cferry_bio_set_mem_eof_return(inbound, -1)
            SSL_set_bio(ssl, inbound, outbound)
            SSL_set_accept_state(ssl)
        }

        deinit { SSL_free(ssl) }

        /// Moves bytes both ways and lets both sides progress until neither does.
        func pump(_ client: TLSConnection, rounds: Int = 20) {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            for _ in 0..<rounds {
                var moved = false
                while client.pendingOutput > 0 {
                    let count = buffer.withUnsafeMutableBytes { client.takeOutput(into: $0) }
                    _ = buffer.withUnsafeBytes { BIO_write(inbound, $0.baseAddress, Int32(count)) }
                    moved = true
                }
                if SSL_is_init_finished(ssl) == 0 { _ = SSL_do_handshake(ssl) }
                while BIO_ctrl_pending(outbound) > 0 {
                    let count = buffer.withUnsafeMutableBytes { BIO_read(outbound, $0.baseAddress, Int32($0.count)) }
                    buffer.withUnsafeBytes { client.receive(UnsafeRawBufferPointer(rebasing: $0[0..<Int(count)])) }
                    moved = true
                }
                // Tests of the connection itself accept every chain when asked.
                if client.handshake() == .needsVerification {
                    client.approvePeer()
                    _ = client.handshake()
                    moved = true
                }
                if !moved { return }
            }
        }

        /// Plaintext the server has received so far.
        func readAll() -> [UInt8] {
            var result: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                var count = 0
                let ok = buffer.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, $0.count, &count) }
                guard ok == 1 else { ERR_clear_error(); return result }
                result += buffer[0..<count]
            }
        }

        /// Queues plaintext for the client.
        func send(_ bytes: [UInt8]) {
            var written = 0
            _ = bytes.withUnsafeBytes { SSL_write_ex(ssl, $0.baseAddress, $0.count, &written) }
        }

        /// The SNI name the client sent, if any.
        var serverName: String? {
            SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
        }

        /// The subject of the client's certificate, if it sent one.
        var clientCertificateSubject: String? {
            guard let x509 = SSL_get0_peer_certificate(ssl), let certificate = try? Certificate(x509: x509) else { return nil }
            return certificate.subject
        }
    }

    func accept() -> Peer { Peer(context: context) }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
