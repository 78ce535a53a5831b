import Ferry
import Foundation
import Testing
@testable import ferry

/// -w prints curl's variables in curl's formats.
struct WriteOutTests {
    private func report() -> TransferReport {
        var report = TransferReport(method: "GET", url: "http://h/")
        report.record(NetworkResponse(
            url: URL(string: "http://h/final")!, status: .init(code: 201, reasonPhrase: "Created"),
            headerFields: [.contentType: "text/plain", .server: "s"]))
        var transaction = TransactionMetrics(fetchStart: Date(timeIntervalSince1970: 1000))
        transaction.domainLookupEnd = .microseconds(1500)
        transaction.connectEnd = .microseconds(2250)
        transaction.requestStart = .milliseconds(3)
        transaction.responseStart = .milliseconds(10)
        transaction.responseEnd = .milliseconds(12)
        transaction.remoteAddress = "127.0.0.1"
        transaction.remotePort = 8080
        transaction.requestHeaderBytesSent = 70
        transaction.requestBodyBytesSent = 5
        transaction.responseHeaderBytesReceived = 100
        transaction.responseBodyBytesReceived = 1234
        report.record(TaskMetrics(transactionMetrics: [transaction], redirectCount: 0, taskDuration: .microseconds(12345)))
        return report
    }

    @Test func theFormatIsReadOnceIntoPieces() {
        #expect(WriteOut.parse("%{http_code} %header{Server}\\n%%done") == [
            .variable("http_code"), .text(" "), .header("Server"), .text("\n%done"),
        ])
        #expect(WriteOut.parse("") == [])
        #expect(WriteOut.parse("50%") == [.text("50%")])
    }

    @Test func allContractVariables() {
        let format = "%{http_code} %{size_download} %{size_upload} %{num_redirects} %{num_connects} %{url_effective} "
            + "%{time_namelookup} %{time_connect} %{time_appconnect} %{time_starttransfer} %{time_total} %{ssl_verify_result}\\n"
        let (text, errorText, warnings) = WriteOut(format).render(report())
        #expect(text == "201 1234 5 0 1 http://h/final 0.001500 0.002250 0.000000 0.010000 0.012345 0\n")
        #expect(errorText.isEmpty && warnings.isEmpty)
    }

    @Test("%{stderr}, %{stdout} and %{onerror}, as curl 7.88", arguments: [
        ("a%{stderr}b%{stdout}c\\n", ExitCode.ok, "ac\n", "b"),
        ("%{onerror}failed %{exitcode}", ExitCode.ok, "", ""),
        ("%{onerror}failed %{exitcode}", ExitCode.cannotConnect, "failed 7", ""),
        ("%{http_code}%{onerror} %{stderr}%{errormsg}", ExitCode.ok, "201", ""),
        ("%{http_code}%{onerror} %{stderr}%{errormsg}", ExitCode.httpError, "201 ", "boom"),
    ])
    func streamsAndOnError(format: String, exitCode: ExitCode, stdout: String, stderr: String) {
        var report = report()
        report.exitCode = exitCode
        report.errorMessage = exitCode == .ok ? "" : "boom"
        if exitCode == .cannotConnect { report.errorMessage = "Failed to connect" }
        let (text, errorText, warnings) = WriteOut(format).render(report)
        #expect(text == stdout)
        #expect(errorText == stderr)
        #expect(warnings.isEmpty)
    }

    @Test func failedTransferPrintsZeros() {
        var report = TransferReport(method: "GET", url: "http://127.0.0.1:9/")
        report.exitCode = .cannotConnect
        report.errorMessage = "Failed to connect"
        let (text, _, _) = WriteOut("%{http_code} %{num_connects} %{time_total} %{exitcode} %{errormsg}").render(report)
        #expect(text == "000 0 0.000000 7 Failed to connect")
    }

    @Test func reusedConnectionCountsNoConnect() {
        var transaction = TransactionMetrics(fetchStart: Date())
        transaction.isReusedConnection = true
        var report = TransferReport(method: "GET", url: "http://h/")
        report.record(TaskMetrics(transactionMetrics: [transaction], redirectCount: 0, taskDuration: .zero))
        #expect(WriteOut("%{num_connects} %{time_connect}").render(report).text == "0 0.000000")
    }

    @Test func redirectsAddTimesFromTheFirstStart() {
        var first = TransactionMetrics(fetchStart: Date(timeIntervalSince1970: 0))
        first.connectEnd = .milliseconds(1)
        var second = TransactionMetrics(fetchStart: Date(timeIntervalSince1970: 0.5))
        second.connectEnd = .milliseconds(2)
        second.responseStart = .milliseconds(4)
        var report = TransferReport(method: "GET", url: "http://h/")
        report.record(TaskMetrics(transactionMetrics: [first, second], redirectCount: 1, taskDuration: .seconds(1)))
        #expect(WriteOut("%{num_redirects} %{num_connects} %{time_connect} %{time_starttransfer}").render(report).text
            == "1 2 0.502000 0.504000")
    }

    @Test func escapesPercentsAndUnknowns() {
        let (text, _, warnings) = WriteOut("a\\tb\\r\\n\\x %% %x %{bogus}%{ end").render(report())
        #expect(text == "a\tb\r\n\\x % %x %{ end")
        #expect(warnings == ["unknown --write-out variable: 'bogus'"])
    }

    @Test func moreVariables() {
        let text = WriteOut("%{content_type}|%{remote_ip}|%{remote_port}|%{method}|%{size_header}|%{size_request}|%header{server}|%{response_code}")
            .render(report()).text
        #expect(text == "text/plain|127.0.0.1|8080|GET|100|75|s|201")
    }

    @Test func secondsHaveSixDecimals() {
        #expect(WriteOut.seconds(0) == "0.000000")
        #expect(WriteOut.seconds(1.5) == "1.500000")
        #expect(WriteOut.seconds(0.0000004) == "0.000000")
        #expect(WriteOut.seconds(12.3456789) == "12.345679")
        #expect(WriteOut.seconds(-1) == "0.000000")
    }

    @Test("-w @file drops the file's line breaks, as curl 7.88; \\n still writes one")
    func aFormatFileLosesItsLineBreaks() {
        let file = Array("a=%{http_code}\nb=%{size_download}\\n\r\n".utf8)
        #expect(FerryTool.loadFormat("@format.txt", readFile: { $0 == "format.txt" ? file : nil }) == "a=%{http_code}b=%{size_download}\\n")
        #expect(FerryTool.loadFormat("@missing", readFile: { _ in nil }) == "")
        #expect(FerryTool.loadFormat("plain\n", readFile: { _ in nil }) == "plain\n")
    }
}
