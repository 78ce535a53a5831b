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
    /// `Last-Modified`) and was not content-decoded, and some of its body is on disk. The
    /// partial file then stays where it is until a continued task finishes it (a temporary one
    /// in `$TMPDIR`): remove it if you drop the resume data. The data holds the request's URL
    /// and header fields: keep it as carefully as the request's credentials.
    ///
    /// The task completes as cancelled, its error carrying the same data
    /// (``NetworkError/downloadTaskResumeData``). A task that already completed hands nil.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        let waits = core.withLock { core -> Bool in
            guard core.machine.publicState != .completed else { return false }
            core.resumeDataHandler = completionHandler
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
    /// Judges the final response of a download that continues `continuation`'s file, on the
    /// exchange's loop. Returns nil when the response is the task's to deliver (the body goes
    /// on after the bytes on disk, or replaces them), or the demand when the task answers it
    /// itself (the file was complete already, or cannot be continued: the body is dropped).
    func continueDownload(_ continuation: DownloadContinuation, response: NetworkResponse) -> BodyDemand? {
        let offset = continuation.offset
        let verdict = ResumeResponse.judge(status: response.statusCode, contentRange: response.headerFields[.contentRange],
                                           offset: offset, validated: continuation.validator != nil)
        switch verdict {
        case .continues(let total):
            let expected = total ?? response.expectedContentLength.map { $0 + offset }
            core.withLock { $0.downloadContinues(at: offset, expectedTotal: expected) }
            tellDownloadResumed(at: offset, expectedTotal: expected)
            return nil
        case .restarts:
            do throws(SystemError) {
                try engineSide.file?.restart()
            } catch {
                engineSide.endPartialOutput()
                return .stop(EngineError(.fileWriteFailed(path: continuation.path, error)))
            }
            tellDownloadResumed(at: 0, expectedTotal: response.expectedContentLength)
            return nil
        case .alreadyComplete:
            core.withLock { $0.downloadContinues(at: offset, expectedTotal: offset) }
            tellDownloadResumed(at: offset, expectedTotal: offset)
            engineSide.followUp = .finish
            _ = deliverHead(response)
            return .more
        case .mismatch(let why):
            // The bytes on disk do not belong to what the server has now.
            engineSide.endPartialOutput()
            engineSide.followUp = .fail(resumeFailure(.mismatch(why), response: response))
            return .more
        case .otherStatus(let status):
            // A 404 or a 503 says nothing against the bytes on disk: they can be continued later.
            let resumeData = continuation.validator.map { validator in
                DownloadResumeData(url: runningRequestURL, headerFields: Self.replayedFields(of: runningRequest),
                                   validator: validator, bytesOnDisk: offset, partialFilePath: continuation.path,
                                   expectedLength: continuation.expectedLength, isTemporary: continuation.isTemporary).encoded()
            }
            engineSide.endPartialOutput(keeping: resumeData != nil)
            engineSide.followUp = .fail(resumeFailure(.status(status), response: response).attaching(resumeData: resumeData))
            return .more
        }
    }

    /// Resume data for a download whose exchange failed part way (`cancelled`: by the caller),
    /// or nil when it cannot be continued (the rules are in
    /// ``DownloadTask/cancel(byProducingResumeData:)``). A plain `cancel()` produces none.
    func partialDownloadResumeData(cancelled: Bool) -> Data? {
        guard case .file(let target) = engineSide.sink, let file = engineSide.file, file.length > 0 else { return nil }
        let (response, expected, wanted) = core.withLock { core in
            (core.response, core.bytesExpectedToReceive(), core.resumeDataHandler != nil)
        }
        guard let response, response.statusCode == 200 || response.statusCode == 206, !cancelled || wanted else { return nil }
        let request = runningRequest
        guard request.method == .get, request.body == nil,
              response.headerFields[.acceptRanges]?.lowercased() != "none" else { return nil }
        // A decoded body's bytes are not the ones a range of the resource would carry.
        if session.configuration.automaticallyDecodesContent, let coding = response.headerFields[.contentEncoding],
           coding.lowercased() != "identity" { return nil }
        var continued: DownloadContinuation?
        if case .continuing(let continuation) = target { continued = continuation }
        guard let validator = DownloadResumeData.validator(in: response.headerFields) ?? continued?.validator else { return nil }
        return DownloadResumeData(url: request.url, headerFields: Self.replayedFields(of: request), validator: validator,
                                  bytesOnDisk: file.length, partialFilePath: file.path, expectedLength: expected,
                                  isTemporary: target.isTemporary).encoded()
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
        guard let observer = engineSide.writeObserver else { return }
        toDelegate { [self] in
            observer.delegate.session(session, downloadTask: observer.task, didResumeAtOffset: offset, expectedTotalBytes: expectedTotal)
        }
    }
}
