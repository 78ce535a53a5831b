import Ferry
import Testing
@testable import ferry

/// Every NetworkError code exits with curl's number.
struct ExitCodeTests {
    static let cases: [(NetworkError.Code, Int32)] = [
        (.cancelled, 42), (.sessionInvalidated, 42),
        (.badURL, 3), (.unsupportedURL, 1),
        (.cannotFindHost, 6), (.dnsLookupFailed, 6),
        (.cannotConnectToHost, 7),
        (.cannotParseResponse, 8), (.badServerResponse, 8), (.responseSerializationFailed, 8),
        (.zeroByteResource, 52),
        (.networkConnectionLost, 56),
        (.timedOut, 28),
        (.httpTooManyRedirects, 47),
        (.cannotDecodeContentData, 61),
        (.dataLengthExceedsMaximum, 63),
        (.cannotResumeDownload, 33),
        (.cannotWriteToFile, 23), (.cannotCreateFile, 23),
        (.cannotOpenFile, 26), (.requestBodyFailed, 26),
        (.invalidRequest, 2),
        (.secureConnectionFailed, 35),
        (.serverCertificateHasBadDate, 60), (.serverCertificateUntrusted, 60),
        (.serverCertificateHasUnknownRoot, 60), (.serverCertificateNotYetValid, 60),
        (.clientCertificateRejected, 35), (.clientCertificateRequired, 35),
        (.pinningMismatch, 90),
        (.cannotFindProxyHost, 5), (.cannotConnectToProxy, 7), (.proxyTunnelFailed, 56),
        (.appTransportSecurityRequiresSecureConnection, 1),
    ]

    @Test(arguments: cases)
    func table(_ code: NetworkError.Code, _ expected: Int32) {
        #expect(ExitCode(NetworkError(code, reason: "x")).rawValue == expected)
    }

    @Test func everyCodeIsInTheTable() {
        #expect(Set(Self.cases.map(\.0)) == Set(ExitCode.table.keys))
    }

    @Test func tlsFailuresAfterTheHandshakeAreReceiveErrorsAsCurl() {
        // curl 7.88: SSL_connect failing is 35, SSL_read failing (a TLS 1.3 certificate_required
        // alert after the client's handshake ended) is 56.
        for code in [NetworkError.Code.secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired] {
            #expect(ExitCode(NetworkError(code, reason: "x"), afterHandshake: false) == .sslConnectError)
            #expect(ExitCode(NetworkError(code, reason: "x"), afterHandshake: true) == .receiveError)
        }
        // Other codes do not depend on the phase.
        #expect(ExitCode(NetworkError(.pinningMismatch, reason: "x"), afterHandshake: true) == .pinningMismatch)
        #expect(ExitCode(NetworkError(.serverCertificateUntrusted, reason: "x"), afterHandshake: true) == .peerFailedVerification)
        #expect(ExitCode(NetworkError(.timedOut, reason: "x"), afterHandshake: true) == .timedOut)
    }

    @Test func unknownCodesAreNeverSuccess() {
        #expect(ExitCode(NetworkError(NetworkError.Code(rawValue: -12345), reason: "x")) == .receiveError)
    }

    @Test func partialBodyIsEighteen() {
        let byReason = NetworkError(.networkConnectionLost, reason: "Transfer closed with 10 bytes remaining to read")
        #expect(ExitCode(byReason) == .partialFile)
        let unknownLength = NetworkError(.networkConnectionLost, reason: "transfer closed with outstanding read data remaining (5 bytes read)")
        #expect(ExitCode(unknownLength) == .partialFile)
        let byCause = NetworkError(.networkConnectionLost, reason: "x", underlyingError: HTTPParseError(.incompleteBody, offset: 99))
        #expect(ExitCode(byCause) == .partialFile)
        let reset = NetworkError(.networkConnectionLost, reason: "failure while receivingBody", underlyingError: SystemError(errno: 104, syscall: "read"))
        #expect(ExitCode(reset) == .receiveError)
    }

    @Test func severalTransfersExitAsCurl() {
        // Sequential: the last transfer decides (curl 7.88: `URL-that-fails URL-that-works` exits 0).
        #expect(ExitCode.overall([.cannotConnect, .ok], parallel: false) == .ok)
        #expect(ExitCode.overall([.ok, .httpError, .cannotConnect], parallel: false) == .cannotConnect)
        // Parallel: the last failure to finish decides.
        #expect(ExitCode.overall([.cannotConnect, .ok], parallel: true) == .cannotConnect)
        #expect(ExitCode.overall([.timedOut, .cannotConnect, .ok], parallel: true) == .cannotConnect)
        #expect(ExitCode.overall([], parallel: false) == .ok)
    }
}
