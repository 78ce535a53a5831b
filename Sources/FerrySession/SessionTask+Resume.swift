import FerryBase
import Dispatch
import FerryEngine
import FerryIO
import FoundationEssentials
import HTTPTypes
import Synchronization

// Downloads that go on where they stopped: URLSession's resume data and curl's `-C`. A task
// that continues a file sends `Range` (and `If-Range`, DownloadContinuation); its final
// response is judged against the bytes on disk here (ResumeResponse); and a download that
// fails part way keeps its file and hands out resume data, in its error or to
// `cancel(byProducingResumeData:)`.

extension DownloadTask {
    /// Cancels the download and hands `completionHandler` (on the delegate queue) the data
    /// that continues it with ``Session/downloadTask(withResumeData:)``, or nil when it cannot
    /// be continued: URLSession's `cancel(byProducingResumeData:)`.
    ///
    /// A download can be continued when its request is a GET without a body, its response is
    /// a 200 (or the 206 of a continued download) that names a validator (a strong `ETag`, or
    /// a `Last-Modified` at least a second before the response's `Date`) and was not
    /// content-decoded, and some of its body is on disk. The
    /// partial file stays in `$TMPDIR` (as `ferry-download-…`) until a task continued from the
    /// data finishes it; resume data dropped leaves it to the system's cleaning of temporary
    /// files (systemd-tmpfiles, a reboot). The data holds the request's URL and header fields:
    /// keep it as carefully as the request's credentials. A download to a destination of your
    /// own (``Session/download(for:to:delegate:)``) produces none: its partial file (beside the
    /// destination, which stays as it was) is removed.
    ///
    /// The task completes as cancelled, its error carrying the same data
    /// (``NetworkError/downloadTaskResumeData``). A task that already completed hands nil.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        let waits = core.withLock { core -> Bool in
            guard core.machine.publicState != .completed else { return false }
            // A second call waits for the same data as the first.
            if let earlier = core.resumeDataHandler {
                core.resumeDataHandler = { data in
                    earlier(data)
                    completionHandler(data)
                }
            } else {
                core.resumeDataHandler = completionHandler
            }
            return true
        }
        guard waits else { return session.delegateQueue.async { completionHandler(nil) } }
        cancel()
    }

    /// Cancels the download and returns the data that continues it, or nil when it cannot be
    /// continued (``cancel(byProducingResumeData:)``, async).
    public func cancelByProducingResumeData() async -> Data? {
        await withCheckedContinuation { continuation in
            cancel(byProducingResumeData: { continuation.resume(returning: $0) })
        }
    }
}

extension SessionTask {
    /// Judges the final response head of a download that continues a file, on the
    /// exchange's loop, before it is delivered, as ``handleRedirect(_:response:request:)``
    /// does a redirect. Returns nil when the response is the task's to deliver (its body goes
    /// on after the bytes on disk, or replaces them), or the task continues nothing. Otherwise
    /// the task answers it itself, and returns what is read of its body: the rest of a 416 for
    /// a file complete already, dropped (a ``FollowUp`` finishes the task; the connection stays
    /// reusable); nothing of an answer the task fails on, whose body may be the whole resource
    /// (a server that ignored the range) or never come: the exchange stops, and the decided
    /// failure stands (``exchangeDidFail(_:metrics:)``).
    func handleContinuation(_ response: NetworkResponse) -> BodyDemand? {
        guard answersContinuation(response) else { return nil }
        guard case .fail = engineSide.followUp else { return .more }
        return .stop(EngineError(.internalInconsistency("the answer to a continued download was refused; its body is not read")))
    }

    /// Whether the task answers a continued download's final response itself (see
    /// ``handleContinuation(_:)``), and how (``engineSide``'s follow-up).
    private func answersContinuation(_ response: NetworkResponse) -> Bool {
        guard case .file(.continuing(let continuation)) = engineSide.sink, continuation.offset > 0 else { return false }
        let offset = continuation.offset
        let fields = response.headerFields
        let answer = ResumeResponse.Answer(contentRange: fields[.contentRange], contentLength: response.expectedContentLength,
                                           entityTag: fields[.eTag], lastModified: fields[.lastModified])
        let onDisk = ResumeResponse.OnDisk(offset: offset, validator: continuation.validator,
                                           expectedLength: continuation.expectedLength)
        let verdict = ResumeResponse.judge(status: response.statusCode, answer, onDisk: onDisk)
        switch verdict {
        case .continues(let total):
            // A range of an encoded body cannot be decoded on its own, nor appended to the bytes on disk.
            if let coding = response.contentCoding {
                return refuse(.mismatch("the 206 is encoded (\(coding.prefix(40)))"), response: response)
            }
            // A length the parser accepted may still be too large to add: then it is unknown.
            let expected = total ?? response.expectedContentLength.flatMap { length in
                let (sum, overflow) = length.addingReportingOverflow(offset)
                return overflow ? nil : sum
            }
            core.withLock { $0.downloadContinues(at: offset, expectedTotal: expected) }
            // A body that ends early but cleanly (a last chunk) must not pass for the whole file.
            engineSide.file?.completeLength = total
            tellDownloadResumed(at: offset, expectedTotal: expected)
            return false
        case .restarts:
            do throws(SystemError) {
                try engineSide.file?.restart()
            } catch {
                engineSide.endPartialOutput()
                let failure = NetworkError(EngineError(.fileWriteFailed(path: continuation.path, error)), url: originalRequest.url)
                engineSide.followUp = .fail(failure.attaching(response: response))
                return true
            }
            tellDownloadResumed(at: 0, expectedTotal: response.expectedContentLength)
            return false
        case .alreadyComplete:
            core.withLock { $0.downloadContinues(at: offset, expectedTotal: offset) }
            tellDownloadResumed(at: offset, expectedTotal: offset)
            engineSide.followUp = .finish
            _ = deliverHead(response)
            return true
        case .mismatch(let why):
            return refuse(.mismatch(why), response: response)
        case .otherStatus(let status):
            // A 404 or a 503 says nothing against the bytes on disk: they can be continued later.
            let resumeData = continuationResumeData(continuation)
            let kept = engineSide.endPartialOutput(keeping: resumeData != nil)
            let failure = resumeFailure(.status(status), response: response)
            engineSide.followUp = .fail(kept ? failure.attaching(resumeData: resumeData) : failure)
            return true
        }
    }

    /// The bytes on disk do not belong to what the server has now: they go (unless they are
    /// the caller's) and the task fails.
    private func refuse(_ failure: ResumeFailure, response: NetworkResponse) -> Bool {
        engineSide.endPartialOutput()
        engineSide.followUp = .fail(resumeFailure(failure, response: response))
        return true
    }

    /// The task is failing with `error`: a partial download keeps its file and gets resume
    /// data in the error when it can be continued, else its file goes (unless it is the
    /// caller's). On the exchange's loop, or on the thread that resumed the task before its
    /// first exchange: where ``engineSide`` may be touched.
    func settlePartialDownload(after error: NetworkError) -> NetworkError {
        guard engineSide.file != nil else {
            // Cancelled before it started (no exchange ran, and the file was never opened): the
            // bytes on disk are as the resume data left them, and the same data continues them
            // when a cancel asks for it. (A file discarded by a refused answer is nil too.)
            guard error.code == .cancelled, engineSide.transactions.isEmpty,
                  case .file(.continuing(let continuation)) = engineSide.sink,
                  core.withLock({ $0.resumeDataHandler != nil }) else { return error }
            return error.attaching(resumeData: continuationResumeData(continuation))
        }
        let resumeData = partialDownloadResumeData(cancelled: error.code == .cancelled)
        let kept = engineSide.endPartialOutput(keeping: resumeData != nil)
        return kept ? error.attaching(resumeData: resumeData) : error
    }

    /// Resume data for a download that stopped part way (`cancelled`: by the caller), or nil
    /// when it cannot be continued (the rules are in ``DownloadTask/cancel(byProducingResumeData:)``).
    /// A plain `cancel()` produces none, nor does ``Session/download(for:to:delegate:)``, whose
    /// partial file beside the destination goes.
    private func partialDownloadResumeData(cancelled: Bool) -> Data? {
        guard case .file(let target) = engineSide.sink, let file = engineSide.file else { return nil }
        let (response, expected, wanted) = core.withLock { core in
            (core.response, core.bytesExpectedToReceive(), core.resumeDataHandler != nil)
        }
        guard !cancelled || wanted else { return nil }
        var continued: DownloadContinuation?
        switch target {
        case .temporary: break
        // A file of the caller's is continued by naming it again, never from resume data.
        case .continuing(let continuation): guard !continuation.isCallersFile else { return nil }
            continued = continuation
        case .destination, .unusable: return nil
        }
        guard let response else {
            // Stopped before its answer was judged: the bytes on disk are as they were.
            return continued.flatMap(continuationResumeData)
        }
        guard file.length > 0 else { return nil }
        let request = runningRequest
        switch response.statusCode {
        // A 200 to a request of the caller's own for a range is not the whole resource.
        case 200: guard continued != nil || request.headerFields[.range] == nil else { return nil }
        // Only the part a continuation asked for follows the bytes on disk.
        case 206: guard continued.map({ $0.offset > 0 }) == true else { return nil }
        default: return nil
        }
        guard request.method == .get, request.body == nil,
              response.headerFields[.acceptRanges]?.lowercased() != "none" else { return nil }
        // An encoded body's bytes are not those a range of the resource would carry.
        if response.contentCoding != nil { return nil }
        // After a 200 the file holds a new version: only its own validator names it.
        let validator = DownloadResumeData.validator(in: response.headerFields)
            ?? (response.statusCode == 206 ? continued?.validator : nil)
        guard let validator else { return nil }
        return DownloadResumeData(url: request.url, headerFields: Self.replayedFields(of: request), validator: validator,
                                  bytesOnDisk: file.length, partialFilePath: file.path, expectedLength: expected,
                                  isTemporary: continued?.isTemporary ?? true, isCallersFile: continued?.isCallersFile ?? false).encoded()
    }

    /// Resume data that continues `continuation` again from the same bytes (nil without a
    /// validator, or with nothing on disk).
    private func continuationResumeData(_ continuation: DownloadContinuation) -> Data? {
        guard let validator = continuation.validator, continuation.offset > 0, !continuation.isCallersFile else { return nil }
        return DownloadResumeData(url: runningRequestURL, headerFields: Self.replayedFields(of: runningRequest),
                                  validator: validator, bytesOnDisk: continuation.offset, partialFilePath: continuation.path,
                                  expectedLength: continuation.expectedLength, isTemporary: continuation.isTemporary,
                                  isCallersFile: continuation.isCallersFile).encoded()
    }

    /// The request's fields that a continued download sends again (its own `Range` and
    /// `If-Range` are made anew).
    private static func replayedFields(of request: NetworkRequest) -> [DownloadResumeData.Field] {
        request.headerFields.compactMap { field in
            field.name == .range || field.name == .ifRange ? nil : DownloadResumeData.Field(name: field.name.rawName, value: field.value)
        }
    }

    private func resumeFailure(_ failure: ResumeFailure, response: NetworkResponse) -> NetworkError {
        NetworkError(SessionFailure.cannotResume(failure), url: originalRequest.url).attaching(response: response)
    }

    /// Tells the download delegate where the file goes on from (0: from the start).
    private func tellDownloadResumed(at offset: Int64, expectedTotal: Int64?) {
        guard let observer = engineSide.downloadObserver else { return }
        toDelegate { [self] in
            observer.delegate.session(session, downloadTask: observer.task, didResumeAtOffset: offset, expectedTotalBytes: expectedTotal)
        }
    }
}
