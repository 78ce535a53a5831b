import Ferry
import FoundationEssentials

/// What `-w` can print about one finished (or failed) transfer, in curl's units.
struct TransferReport: Sendable {
    var method: String
    /// The URL the last response answered (curl's `url_effective`).
    var urlEffective: String
    /// 0 until a response arrived; printed as `000` then, as curl.
    var httpCode = 0
    var httpVersion = ""
    var responseHeaders = HTTPFields()
    /// The response's Content-Type, looked up when `-w` asks for it.
    var contentType: String? { responseHeaders[.contentType] }
    /// Body bytes as received (before decoding), as curl counts `size_download`.
    var sizeDownload: Int64 = 0
    var sizeUpload: Int64 = 0
    var sizeHeader: Int64 = 0
    var sizeRequest: Int64 = 0
    var numRedirects = 0
    /// New connections made; 0 when the transfer reused a kept-alive one.
    var numConnects = 0
    var remoteIP: String?
    var remotePort: Int?
    /// Seconds from the start of the transfer, as curl's `time_*` variables.
    var timeNamelookup = 0.0
    var timeConnect = 0.0
    var timeAppconnect = 0.0
    var timePretransfer = 0.0
    var timeStarttransfer = 0.0
    var timeTotal = 0.0
    /// OpenSSL's verification result for the server's chain under the default rules: 0 when
    /// valid (and for plain HTTP), else an `X509_V_ERR_…` code, as curl's `ssl_verify_result`
    /// (with `-k` a transfer succeeds and still reports why the chain was not valid).
    var sslVerifyResult = 0
    var exitCode = ExitCode.ok
    var errorMessage = ""
    /// The failure was already explained by a warning, so no `ferry: (N)` line follows
    /// (curl's binary-to-terminal refusal exits 23 that way).
    var warnedInstead = false

    init(method: String, url: String) {
        self.method = method
        self.urlEffective = url
    }

    /// Records the response head.
    mutating func record(_ response: NetworkResponse) {
        httpCode = response.statusCode
        httpVersion = response.httpVersion.hasPrefix("HTTP/") ? String(response.httpVersion.dropFirst(5)) : response.httpVersion
        responseHeaders = response.headerFields
        urlEffective = response.url.absoluteString
    }

    /// Takes timings and sizes from the session's metrics.
    ///
    /// Times are measured from the first exchange's start, so across redirects they add up as
    /// curl's do; sizes of the body are the last exchange's, header sizes are summed (curl's
    /// `size_header` counts every response head).
    mutating func record(_ metrics: TaskMetrics) {
        numRedirects = metrics.redirectCount
        timeTotal = Self.seconds(metrics.taskDuration)
        let transactions = metrics.transactionMetrics
        numConnects = transactions.filter { !$0.isReusedConnection && $0.connectEnd != nil }.count
        sizeHeader = transactions.reduce(0) { $0 + $1.responseHeaderBytesReceived }
        sizeRequest = transactions.reduce(0) { $0 + $1.requestHeaderBytesSent + $1.requestBodyBytesSent }
        guard let first = transactions.first, let last = transactions.last else { return }
        if httpCode == 0, metrics.redirectCount > 0 {
            // A redirect followed, then the next request failed with no answer: curl names
            // the last response received and the URL it was sent to.
            httpCode = transactions.last { $0.statusCode != nil }?.statusCode ?? 0
            urlEffective = last.url?.absoluteString ?? urlEffective
        }
        let base = last.fetchStart.timeIntervalSince(first.fetchStart)
        func at(_ offset: Duration?) -> Double { offset.map { base + Self.seconds($0) } ?? 0 }
        timeNamelookup = at(last.domainLookupEnd)
        timeConnect = at(last.connectEnd)
        timeAppconnect = at(last.secureConnectionEnd)
        timePretransfer = at(last.requestStart)
        timeStarttransfer = at(last.responseStart)
        sizeDownload = last.responseBodyBytesReceived
        sizeUpload = last.requestBodyBytesSent
        sslVerifyResult = last.serverCertificateVerifyResult ?? sslVerifyResult
        remoteIP = last.remoteAddress ?? remoteIP
        remotePort = last.remotePort ?? remotePort
    }

    /// Average download speed in bytes per second, as curl's `speed_download`.
    var speedDownload: Int64 {
        timeTotal > 0 ? Int64(Double(sizeDownload) / timeTotal) : 0
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
