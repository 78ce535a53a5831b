// A measurement, not a test: full against resumed TLS handshakes through Session, printed for
// the closing note. It asserts nothing about time and runs only when asked:
//
//   FERRY_MEASURE_HANDSHAKES=200 .build/x86_64-unknown-linux-gnu/debug/FerryPackageTests.xctest \
//       --testing-library swift-testing --filter HandshakeTimingMeasurement
//
// With FERRY_MEASURE_URL=https://localhost:PORT/ as well, it also measures another server, e.g.
//   openssl s_server -accept 127.0.0.1:PORT -cert leaf.pem -key leaf.key -cert_chain intermediate-ca.pem -www
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Handshake timing measurement (opt-in: FERRY_MEASURE_HANDSHAKES=N)", .serialized)
struct HandshakeTimingMeasurement {
    /// Requests per series, from the environment; nil when the measurement is not wanted.
    static let requests = ProcessInfo.processInfo.environment["FERRY_MEASURE_HANDSHAKES"].flatMap { Int($0) }

    @Test("median secureConnectionEnd - connectEnd against TLSTestServer (NIOSSL), full and resumed",
          .enabled(if: requests != nil, "set FERRY_MEASURE_HANDSHAKES=N to measure"),
          arguments: [TLSServerConfiguration.Version.tls13, .tls12])
    func measureAgainstNIOSSL(version: TLSServerConfiguration.Version) async throws {
        try await TLSTestServer.withServer(TLSServerConfiguration(versions: version ... version)) { server in
            try await Self.measure(try TLSSessionTest.url(server, host: "127.0.0.1"), label: "NIOSSL \(version)")
        }
    }

    /// Another server, such as `openssl s_server -www` with `chain.pem` (see the header).
    @Test("median secureConnectionEnd - connectEnd against FERRY_MEASURE_URL, full and resumed",
          .enabled(if: requests != nil && externalURL != nil, "set FERRY_MEASURE_HANDSHAKES=N and FERRY_MEASURE_URL"))
    func measureAgainstExternalServer() async throws {
        let url = try #require(Self.externalURL.flatMap { URL(string: $0) })
        try await Self.measure(url, label: url.absoluteString)
    }

    static let externalURL = ProcessInfo.processInfo.environment["FERRY_MEASURE_URL"]

    /// Prints, for resumption off then on, how many handshakes resumed and the median and
    /// 90th percentile of `secureConnectionEnd - connectEnd` in µs.
    private static func measure(_ url: URL, label: String) async throws {
        let count = max(1, requests ?? 1)
        for resumes in [false, true] {
            let session = Session(configuration: try TLSSessionTest.configuration { $0.tlsConfiguration.resumesSessions = resumes })
            defer { session.invalidateAndCancel() }
            var micros: [Double] = []
            var resumed = 0
            for _ in 0..<count {
                let fetched = try await session.fetch(url, headers: ["Connection": "close"])
                if fetched.metrics.isTLSSessionResumed { resumed += 1 }
                if let start = fetched.metrics.connectEnd, let end = fetched.metrics.secureConnectionEnd {
                    let elapsed = (end - start).components
                    micros.append(Double(elapsed.seconds) * 1e6 + Double(elapsed.attoseconds) / 1e12)
                }
            }
            micros.sort()
            let median = micros.isEmpty ? 0 : micros[micros.count / 2]
            let p90 = micros.isEmpty ? 0 : micros[min(micros.count - 1, micros.count * 9 / 10)]
            print("handshake \(label) resumesSessions=\(resumes): \(count) requests, \(resumed) resumed, median \(Int(median)) µs, p90 \(Int(p90)) µs")
        }
    }
}
