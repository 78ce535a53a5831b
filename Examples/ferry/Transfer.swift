#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Ferry
import FoundationEssentials

/// One URL fetched over the shared session: the only file that calls ``Session``.
///
/// Keeping every Session call here means the rest of the tool (parsing, request building,
/// formatting, exit codes) is plain values and tested without a network.
struct Transfer: Sendable {
    let job: Options.Job
    let options: Options
    let builder: RequestBuilder
    let session: Session
    let console: Console
    let progress: ProgressReporter?
    /// Why https URLs cannot be fetched (a bad `--cacert`, `--cert` or `--pinnedpubkey`).
    let tlsFailure: TLSSetup.Failure?
    /// `-D`: where every response head goes too (one for the run).
    let headerDump: HeaderDump?

    /// A session whose delegate callbacks run on a queue of ferry's own, so ``run()`` can wait
    /// for the queue to catch up (the `-v` lines) before it reports.
    static func makeSession(configuration: SessionConfiguration) -> Session {
        Session(configuration: configuration, delegateQueue: DispatchQueue(label: "ferry.delegate"))
    }

    /// The executor of the session's loop, for the transfers to run on (see ``Runner``); nil
    /// when the first URL cannot be requested (its transfer reports why).
    static func executor(of session: Session, for jobs: Options.Jobs) -> (any TaskExecutor)? {
        jobs.first.flatMap { RequestBuilder.url(from: $0.url) }.flatMap(session.taskExecutor(for:))
    }

    /// Cancels anything still running and releases the session's connections.
    static func shutdown(_ session: Session) {
        session.invalidateAndCancel()
    }

    /// Fetches the URL, writing the head (`-i`/`-I`) and body to the job's output.
    /// - Returns: What happened, for `-w`, the error line and the exit code. Never throws:
    ///   a failure is a report with a non-zero ``TransferReport/exitCode``.
    func run() async -> TransferReport {
        var report = TransferReport(method: builder.method.rawValue, url: job.url)
        let sink = OutputSink(path: job.filePath, console: console)
        let guardsTerminal = job.isImplicitStandardOutput && console.stdoutIsTerminal
        var bodyBytes: Int64 = 0
        let started = ContinuousClock.now
        // Whether the body may have been dropped before its end (which cancels the task).
        var mayHaveAbandonedBody = false
        var failure: NetworkError?
        var task: DataTask?
        var observer: TransferObserver?
        // Whether the heads were written (-i, -I) or dumped (-D) already.
        var tookHeads = false
        let writesHeads = options.include || options.headOnly
        if job.lacksRemoteName && !options.remoteHeaderName {
            report.exitCode = .writeError
            report.errorMessage = "Remote file name has no length!"
            return report
        }
        do {
            let request = try builder.request(for: job.url)
            report.urlEffective = request.url.absoluteString
            if let tlsFailure, request.url.scheme?.lowercased() == "https" {
                // As curl: the TLS files are only needed, and only fail, for https.
                report.exitCode = tlsFailure.exitCode
                report.errorMessage = tlsFailure.message
                return report
            }
            // With nothing to continue (no file, an empty one, -C 0) -C is an ordinary download,
            // by the ordinary path: the file is opened only for a body it keeps, as curl's.
            if let continueAt = options.continueAt, let path = job.filePath, (continueAt.bytes ?? Self.fileSize(path) ?? 0) > 0 {
                return await continueFile(path, from: continueAt, with: request, report: report)
            }
            let started = session.dataTask(with: request)
            task = started
            limitRate(of: started)
            // Only a few options need the delegate (TransferObserver.make): each of its events
            // costs a hop to the delegate queue.
            observer = TransferObserver.make(for: options, console: console)
            if let observer { started.delegate = observer }
            let (body, response) = try await started.bytes()
            // -v prints the head on the delegate queue, which got it before this call returned:
            // once the queue caught up, its `<` lines come before the body, as curl's do.
            if options.verbose { await Self.catchUp(with: session) }
            report.record(response)
            mayHaveAbandonedBody = true
            let serverName = options.remoteHeaderName && job.isRemoteName ? response.dispositionFilename : nil
            // -OJ: the server's name, as curl, which never replaces a file for it.
            if let serverName { sink.retarget(to: serverName) }
            if writesHeads || headerDump != nil {
                // With -L, every hop's head, as curl writes them.
                tookHeads = true
                let heads = (observer?.takeRedirectHeads() ?? "") + HeadFormatter.included(response)
                if writesHeads { try sink.write(Array(heads.utf8)) }
                try headerDump?.write(heads)
            }
            if job.lacksRemoteName && serverName == nil {
                // -OJ on a URL without a name, and the server named none either.
                report.exitCode = .writeError
                report.errorMessage = "Remote file name has no length!"
            } else if observer?.refusedRedirect == true {
                // -L --max-redirs 0: curl stops at the first redirect's head.
                report.exitCode = .tooManyRedirects
                report.errorMessage = "Maximum (0) redirects followed"
            } else if options.fail && response.statusCode >= 400 {
                // curl -f stops at the head: no body is written, and the connection is dropped.
                report.exitCode = .httpError
                report.errorMessage = "The requested URL returned error: \(response.statusCode)"
            } else if let limit = options.maxFilesize, let length = response.expectedContentLength, length > limit {
                // An announced size over --max-filesize fails before the body, as curl (a HEAD's
                // too); the session's own limit catches bodies whose size was not announced.
                report.exitCode = .fileSizeExceeded
                report.errorMessage = "Maximum file size exceeded"
            } else if options.headOnly {
                // -I: the head only, as curl's "no body", even when -X names a method whose
                // answer has one (the body is not read; the connection is dropped).
            } else {
                progress?.expect(response.expectedContentLength)
                var chunks = body.makeAsyncIterator()
                while let chunk = try await Self.next(&chunks) {
                    if guardsTerminal && chunk.contains(0) {
                        refuseBinaryOnTerminal(&report)
                        break
                    }
                    try sink.write(chunk)
                    bodyBytes += Int64(chunk.count)
                    progress?.received(chunk.count)
                }
                mayHaveAbandonedBody = report.warnedInstead
                try sink.finish()
            }
        } catch {
            failure = error
            if (writesHeads || headerDump != nil) && !tookHeads {
                // The heads that came before the failure, as curl writes them as they come: the
                // redirects followed, then one the task could not follow. (A proxy's answer to
                // CONNECT is not the server's head.)
                var heads = observer?.takeRedirectHeads() ?? ""
                if let response = error.response, error.code != .proxyTunnelFailed { heads += HeadFormatter.included(response) }
                if writesHeads { try? sink.write(Array(heads.utf8)) }
                try? headerDump?.write(heads)
            }
            record(error, in: &report, elapsed: ContinuousClock.now - started, received: bodyBytes)
        }
        var metrics: TaskMetrics?
        if let task { metrics = await Self.metrics(of: task, waiting: mayHaveAbandonedBody || options.verbose) }
        if report.httpCode == 0, let response = task?.response { report.record(response) }
        report.sizeDownload = bodyBytes
        if let metrics { report.record(metrics) }
        // curl -f stops at the head: whatever of the body came with it is not counted.
        if report.exitCode == .httpError { report.sizeDownload = 0 }
        if let failure {
            settle(failure, metrics: metrics, in: &report)
        }
        return report
    }

    /// `-C` with bytes to continue: the `-o` file goes on with the library's continuing
    /// download, the one path of every such job (``Options/validateContinuation()`` keeps
    /// standard output, `-i` and `-I` away from it).
    ///
    /// The library sends `Range: bytes=N-` and appends a 206 that starts at N; a 416 naming N
    /// as the length is the complete file (exit 0, nothing written); any other answer fails
    /// with `cannotResumeDownload` (33) and leaves the file as it was.
    /// ``ContinuationObserver`` carries `-v`, the meter and the figures of `-w`.
    private func continueFile(_ path: String, from continueAt: Options.ContinueAt, with request: NetworkRequest,
                              report: TransferReport) async -> TransferReport {
        var report = report
        let sizeBefore = Self.fileSize(path)
        if options.verbose, let offset = continueAt.bytes ?? sizeBefore, offset > 0 {
            console.writeError("** Resuming transfer from byte position \(offset)\n")
        }
        let observer = ContinuationObserver(observer: TransferObserver.make(for: options, console: console), progress: progress)
        let started = ContinuousClock.now
        var failure: NetworkError?
        do {
            // A continued file never receives an error body: the library refuses the answer.
            let task = session.downloadTask(with: request, continuing: URL(fileURLWithPath: path), from: continueAt.bytes)
            task.delegate = observer
            limitRate(of: task)
            let (_, response) = try await task.download()
            report.record(response)
            try headerDump?.write(HeadFormatter.included(response))
        } catch {
            failure = error
            if let response = error.response, error.code != .proxyTunnelFailed { try? headerDump?.write(HeadFormatter.included(response)) }
            // A refused continuation's head reaches the delegate only inside the error.
            if options.verbose, observer.response == nil, let response = error.response, error.code == .cannotResumeDownload {
                console.writeError(HeadFormatter.verboseResponse(response))
            }
            record(error, in: &report, elapsed: ContinuousClock.now - started, received: observer.written)
        }
        let metrics = observer.metrics
        if let metrics { report.record(metrics) }
        // Bytes that went into the file this time and stay there: not the 416's page, not a
        // refused body.
        report.sizeDownload = observer.written
        if let failure {
            if options.fail, failure.code == .cannotResumeDownload, let status = failure.response?.statusCode, status >= 400 {
                // curl -f judges the status before the range: a 404 is 22, not 33 (and so is a
                // 416 of another length; the one that names the file's length is success).
                report.exitCode = .httpError
                report.errorMessage = "The requested URL returned error: \(status)"
            } else {
                settle(failure, metrics: metrics, in: &report)
            }
        }
        return report
    }

    /// `--limit-rate`: curl caps each transfer, both ways.
    private func limitRate(of task: SessionTask) {
        guard let rate = options.limitRate else { return }
        task.maximumDownloadBytesPerSecond = rate
        task.maximumUploadBytesPerSecond = rate
    }

    /// What a failure tells the report: the response it carries (`%{http_code}`), the
    /// `ferry: (N)` sentence and a refused chain's verification result.
    private func record(_ error: NetworkError, in report: inout TransferReport, elapsed: Duration, received: Int64) {
        // A refused tunnel's response is the proxy's answer to CONNECT, not the server's:
        // curl's %{http_code} stays 000 then.
        if let response = error.response, error.code != .proxyTunnelFailed { report.record(response) }
        report.errorMessage = Self.message(for: error, elapsed: elapsed, received: received, maxRedirects: options.maxRedirects)
        // A refused chain's verification result (curl's ssl_verify_result for a failure).
        if let code = (error.underlyingError as? ServerTrustError)?.trustFailure?.verifyCode {
            report.sslVerifyResult = Int(code)
        }
    }

    /// curl's exit code for a failed transfer. An https hop reached by a redirect when a TLS
    /// file could not be used is refused (the session fails closed, ``TLSSetup``): that file's
    /// code and sentence, as for an https URL given directly.
    private func settle(_ failure: NetworkError, metrics: TaskMetrics?, in report: inout TransferReport) {
        if let tlsFailure, failure.underlyingError is ServerTrustError {
            report.exitCode = tlsFailure.exitCode
            report.errorMessage = tlsFailure.message
            return
        }
        report.exitCode = ExitCode(failure, afterHandshake: Self.passedHandshake(metrics))
    }

    /// The size of the file at `path`, or nil when there is none.
    private static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Whether the last exchange's connection had its TLS handshake behind it when the
    /// transfer failed: it completed one, or it was a kept-alive connection, or the request
    /// had already gone out (which needs a finished handshake on https).
    static func passedHandshake(_ metrics: TaskMetrics?) -> Bool {
        guard let last = metrics?.transactionMetrics.last else { return false }
        return last.secureConnectionEnd != nil || last.isReusedConnection || last.requestStart != nil
    }

    /// The `ferry: (N)` sentence for `error`: the library's own sentence (it names host, port
    /// and errno text), except where curl's fixed wording is what scripts and users know.
    static func message(for error: NetworkError, elapsed: Duration, received: Int64, maxRedirects: Int = 50) -> String {
        switch error.code {
        case .timedOut where !error.reason.hasPrefix("Connection to"):
            // The library names its internal phase ("while awaitingResponse"); curl says how long.
            let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
            return "Operation timed out after \(milliseconds) milliseconds with \(received) bytes received"
        case .httpTooManyRedirects:
            return "Maximum (\(maxRedirects)) redirects followed"
        case .dataLengthExceedsMaximum:
            // Same words whether the size was announced (checked here) or found while reading.
            return "Maximum file size exceeded"
        default:
            return error.reason
        }
    }

    /// curl will not write binary data (a NUL byte) to a terminal unless asked with `-o -`.
    private func refuseBinaryOnTerminal(_ report: inout TransferReport) {
        if !options.silent { console.writeErrorLines(Self.binaryWarning) }
        report.exitCode = .writeError
        report.errorMessage = "Failure writing output to destination"
        report.warnedInstead = true
    }

    /// curl 7.88's words, line breaks included.
    static let binaryWarning = [
        "Warning: Binary output can mess up your terminal. Use \"--output -\" to tell ",
        "Warning: ferry to output it to your terminal anyway, or consider \"--output ",
        "Warning: <FILE>\" to save to a file.",
    ]

    /// The next body chunk as a ``NetworkError``-throwing call, whatever the iterator's type is
    /// named and whatever error type it declares.
    private static func next<Chunks: AsyncIteratorProtocol>(_ chunks: inout Chunks) async throws(NetworkError) -> [UInt8]?
    where Chunks.Element == [UInt8] {
        do {
            return try await chunks.next()
        } catch {
            throw networkError(error)
        }
    }

    private static func networkError(_ error: any Error) -> NetworkError {
        error as? NetworkError ?? NetworkError(.networkConnectionLost, reason: String(describing: error))
    }

    /// The task's metrics, once it completed.
    ///
    /// A complete body or a failure means the task completed: its metrics are there, and its
    /// delegate (`-v`) has had its calls, since the session ends a body or fails a call after
    /// them. When the transfer stopped early (`-f`, `--max-filesize`, a write error, a refused
    /// terminal), the body was dropped, which cancels the task: it completes a moment later.
    /// With `waiting`, this returns once it has (its progress updates end then), and once the
    /// delegate queue ran what `-v` printed meanwhile.
    private static func metrics(of task: DataTask, waiting: Bool) async -> TaskMetrics? {
        guard waiting else { return task.metrics }
        for await _ in task.progressUpdates {}
        await catchUp(with: task.session)
        return task.metrics
    }

    /// Returns once `session`'s delegate queue ran what was queued on it before this call.
    private static func catchUp(with session: Session) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.delegateQueue.async { continuation.resume() }
        }
    }
}
