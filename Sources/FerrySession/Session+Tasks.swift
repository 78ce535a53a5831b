import FoundationEssentials

// The task factories: URLSession's names and shapes. Each returns a suspended task; call
// `resume()` to start it. Completion handlers run on the session's delegate queue.

extension Session {
    /// A task that loads `request` and hands the body to its ``SessionDataDelegate`` (the
    /// task's own, or the session's) as it arrives, keeping none of it.
    public func dataTask(with request: NetworkRequest) -> DataTask {
        DataTask(session: self, identifier: nextTaskIdentifier(), request: request, sink: .delegate, kind: .data)
    }

    /// A task that loads `request`, collects the body and calls `completionHandler` with the
    /// body and response, or with the error (and the response, if its head arrived).
    public func dataTask(
        with request: NetworkRequest,
        completionHandler: @escaping @Sendable (Data?, NetworkResponse?, NetworkError?) -> Void
    ) -> DataTask {
        let task = DataTask(session: self, identifier: nextTaskIdentifier(), request: request, sink: .memory, kind: .data)
        task.attachDataHandler(completionHandler)
        return task
    }

    /// A task that sends `bodyData` as the body of `request` (its own body is replaced).
    public func uploadTask(with request: NetworkRequest, from bodyData: Data) -> UploadTask {
        makeUploadTask(request, body: .data(bodyData), collects: false)
    }

    /// ``uploadTask(with:from:)`` with a completion handler, as ``dataTask(with:completionHandler:)``.
    public func uploadTask(
        with request: NetworkRequest, from bodyData: Data,
        completionHandler: @escaping @Sendable (Data?, NetworkResponse?, NetworkError?) -> Void
    ) -> UploadTask {
        let task = makeUploadTask(request, body: .data(bodyData), collects: true)
        task.attachDataHandler(completionHandler)
        return task
    }

    /// A task that streams the file at `fileURL` as the body of `request` (never loading it
    /// whole; its size becomes Content-Length).
    public func uploadTask(with request: NetworkRequest, fromFile fileURL: URL) -> UploadTask {
        makeUploadTask(request, body: .file(fileURL), collects: false)
    }

    /// ``uploadTask(with:fromFile:)`` with a completion handler, as ``dataTask(with:completionHandler:)``.
    public func uploadTask(
        with request: NetworkRequest, fromFile fileURL: URL,
        completionHandler: @escaping @Sendable (Data?, NetworkResponse?, NetworkError?) -> Void
    ) -> UploadTask {
        let task = makeUploadTask(request, body: .file(fileURL), collects: true)
        task.attachDataHandler(completionHandler)
        return task
    }

    /// A task that sends the body of `request` as it is, typically a stream
    /// (``RequestBody/stream(_:length:)``), pulling one chunk at a time.
    public func uploadTask(withStreamedRequest request: NetworkRequest) -> UploadTask {
        UploadTask(session: self, identifier: nextTaskIdentifier(), request: request, sink: .delegate, kind: .upload)
    }

    /// A task that writes the body of `request` to a temporary file and hands it to its
    /// ``SessionDownloadDelegate``.
    public func downloadTask(with request: NetworkRequest) -> DownloadTask {
        downloadTask(request, into: .temporary)
    }

    /// A task that writes the body of `request` to a temporary file and calls
    /// `completionHandler` with its URL and the response, or with the error. Move or open the
    /// file before the handler returns: it is removed afterwards.
    public func downloadTask(
        with request: NetworkRequest,
        completionHandler: @escaping @Sendable (URL?, NetworkResponse?, NetworkError?) -> Void
    ) -> DownloadTask {
        let task = downloadTask(with: request)
        task.attachDownloadHandler(completionHandler)
        return task
    }

    /// A task that continues a download where it stopped, from the resume data of
    /// ``DownloadTask/cancel(byProducingResumeData:)`` or of a failed download's error
    /// (``NetworkError/downloadTaskResumeData``): URLSession's `downloadTask(withResumeData:)`.
    ///
    /// It asks for the bytes after those on disk (`Range`, with `If-Range` naming the version
    /// they belong to) and appends them to the partial file; its delegate hears
    /// ``SessionDownloadDelegate/session(_:downloadTask:didResumeAtOffset:expectedTotalBytes:)``.
    /// When the resource changed (a 200), the file starts over (offset 0); when it was complete
    /// already (a 416 naming its length), the task succeeds with the file as it is. Resume data
    /// that is corrupt or of another version, a partial file that is gone, or an answer that
    /// does not fit the bytes on disk fails the task with ``NetworkError/Code/cannotResumeDownload``.
    /// The file is handed to the delegate or completion handler as the first task's would have
    /// been: a temporary file (removed afterwards), or the caller's file a task made with
    /// ``downloadTask(with:continuing:from:)`` was continuing (kept).
    public func downloadTask(withResumeData resumeData: Data) -> DownloadTask {
        let (request, target) = DownloadContinuation.task(resumingFrom: resumeData)
        return downloadTask(request, into: target)
    }

    /// ``downloadTask(withResumeData:)`` with a completion handler, as
    /// ``downloadTask(with:completionHandler:)``.
    public func downloadTask(
        withResumeData resumeData: Data,
        completionHandler: @escaping @Sendable (URL?, NetworkResponse?, NetworkError?) -> Void
    ) -> DownloadTask {
        let task = downloadTask(withResumeData: resumeData)
        task.attachDownloadHandler(completionHandler)
        return task
    }

    /// A task that continues the download of `request` into `file`, after its first `offset`
    /// bytes (nil: all it holds): curl's `-C`. Bytes past `offset` are cut off.
    ///
    /// Without resume data there is no validator to send in `If-Range`, so the server cannot
    /// say whether the bytes on disk are still those of its resource: a 206 from `offset` is
    /// appended, a 416 naming `offset` as the length completes the task with the file as it
    /// is, and any other answer (a 200 included, from a server that ignores ranges) fails with
    /// ``NetworkError/Code/cannotResumeDownload`` and leaves the file untouched (bytes past
    /// `offset` are cut off only once the rest is accepted). The file is the caller's: it is
    /// never removed, and a failure gives no resume data (continue the file by naming it
    /// again: resume data, which anyone could edit, never names a file outside Ferry's
    /// temporary ones). Without an offset, a missing or empty file is an ordinary download into
    /// it, and so is an offset of 0; an offset past the file's end fails.
    public func downloadTask(with request: NetworkRequest, continuing file: URL, from offset: Int64? = nil) -> DownloadTask {
        let (request, target) = DownloadContinuation.task(request, continuing: file, from: offset)
        return downloadTask(request, into: target)
    }

    /// A download task that writes the body of `request` to `target`: every factory's, the
    /// async calls' and a data task's that becomes a download.
    func downloadTask(_ request: NetworkRequest, into target: DownloadTarget) -> DownloadTask {
        DownloadTask(session: self, identifier: nextTaskIdentifier(), request: request, sink: .file(target), kind: .download)
    }

    private func makeUploadTask(_ request: NetworkRequest, body: RequestBody, collects: Bool) -> UploadTask {
        var request = request
        request.body = body
        return UploadTask(session: self, identifier: nextTaskIdentifier(), request: request,
                          sink: collects ? .memory : .delegate, kind: .upload)
    }
}

extension DataTask {
    /// Reports the collected body to a URLSession-shaped completion handler.
    fileprivate func attachDataHandler(_ handler: @escaping @Sendable (Data?, NetworkResponse?, NetworkError?) -> Void) {
        _ = attachCompletion(.handler { outcome in
            switch outcome {
            case .success(let result): handler(result.data, result.response, nil)
            case .failure(let error): handler(nil, error.response, error)
            }
        })
    }
}

extension DownloadTask {
    /// Reports the file to a URLSession-shaped completion handler.
    fileprivate func attachDownloadHandler(_ handler: @escaping @Sendable (URL?, NetworkResponse?, NetworkError?) -> Void) {
        _ = attachCompletion(.handler { outcome in
            switch outcome {
            case .success(let result): handler(result.location, result.response, nil)
            case .failure(let error): handler(nil, error.response, error)
            }
        })
    }
}
