import FerryEngine
import FoundationEssentials

// The async calls: each runs one task and awaits it (`SessionTask.outcome`), so they share
// the task's cancellation, delegate order and delivery with every other front end.

extension Session {
    /// Loads a request and returns its whole body.
    /// - Parameters:
    ///   - request: What to load.
    ///   - delegate: Receives this request's task events (head sent, upload progress, metrics).
    /// - Returns: The body (decoded when ``SessionConfiguration/automaticallyDecodesContent``) and the response.
    /// - Throws: ``NetworkError``: `.badURL`, `.unsupportedURL`, `.invalidRequest`, `.cannotFindHost`,
    ///   `.cannotConnectToHost`, `.timedOut`, `.networkConnectionLost`, `.zeroByteResource`,
    ///   `.cannotParseResponse`, `.cannotDecodeContentData`, `.dataLengthExceedsMaximum`,
    ///   `.sessionInvalidated`, `.cancelled` (also when the awaiting Swift task is cancelled).
    public func data(for request: NetworkRequest, delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> (Data, NetworkResponse) {
        let task = DataTask(session: self, identifier: nextTaskIdentifier(), request: request, sink: .memory, kind: .data)
        task.delegate = delegate
        let result = try await task.outcome()
        return (result.data, result.response)
    }

    /// Sends `body` and returns the whole response body.
    /// - Parameters:
    ///   - request: What to send; its own body is replaced by `body`.
    ///   - body: The body: memory, a file (streamed), or an async stream.
    ///   - delegate: Receives this request's task events;
    ///     ``SessionTaskDelegate/session(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)``
    ///     reports upload progress.
    /// - Throws: ``NetworkError`` as ``data(for:delegate:)``, plus `.cannotOpenFile` and `.requestBodyFailed`.
    public func upload(for request: NetworkRequest, from body: RequestBody, delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> (Data, NetworkResponse) {
        var request = request
        request.body = body
        let task = UploadTask(session: self, identifier: nextTaskIdentifier(), request: request, sink: .memory, kind: .upload)
        task.delegate = delegate
        let result = try await task.outcome()
        return (result.data, result.response)
    }

    /// Loads a request and returns as soon as the response head arrives; the body follows
    /// as an async sequence with backpressure.
    /// - Throws: ``NetworkError`` as ``data(for:delegate:)`` for failures before the head;
    ///   later failures are thrown by the body's iterator.
    public func bytes(for request: NetworkRequest, delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> (ResponseBody, NetworkResponse) {
        let task = dataTask(with: request)
        task.delegate = delegate
        return try await task.bytes()
    }

    /// Loads a request and streams its body into a file, never holding it in memory. The body
    /// is written to a new file beside `destination` and renamed over it once complete, so a
    /// reader never sees half a body, a failed download leaves `destination` as it was, and a
    /// symbolic link at `destination` is replaced, not written through. A replaced file keeps
    /// its permission bits. A directory is refused before anything is sent; a device
    /// (`/dev/null`) is written in place. An existing file in a directory you cannot write is
    /// written in place too (it cannot be replaced in one step there): it stays as it was if
    /// the download fails before its first body byte, and holds what arrived if it fails
    /// later; it is never removed. The error of a failed
    /// download carries no resume data (a download task's does:
    /// ``downloadTask(with:completionHandler:)``; ``download(for:continuing:from:delegate:)``
    /// continues a file of your own).
    /// - Parameters:
    ///   - request: What to load.
    ///   - destination: A file URL to write the body to.
    ///   - delegate: Receives this request's task events.
    /// - Throws: ``NetworkError`` as ``data(for:delegate:)``, plus `.cannotCreateFile` and `.cannotWriteToFile`.
    public func download(for request: NetworkRequest, to destination: URL, delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> NetworkResponse {
        try await download(request, into: .destination(destination.path), delegate: delegate).1
    }

    /// Continues a download where it stopped, from the resume data of a failed or cancelled
    /// one (``downloadTask(withResumeData:)`` says how), and returns the finished file and the
    /// response. The file is where the bytes on disk were, and it is the caller's now: move or
    /// remove it.
    /// - Throws: ``NetworkError`` as ``download(for:to:delegate:)``, plus
    ///   `.cannotResumeDownload`; a download that fails again carries new resume data.
    public func download(resumeFrom resumeData: Data, delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> (URL, NetworkResponse) {
        let (request, target) = DownloadContinuation.task(resumingFrom: resumeData)
        return try await download(request, into: target, delegate: delegate)
    }

    /// Continues the download of `request` into `file`, after its first `offset` bytes (nil:
    /// all it holds), and returns the file and the response: curl's `-C`
    /// (``downloadTask(with:continuing:from:)`` says how the answer is judged).
    /// - Throws: ``NetworkError`` as ``download(for:to:delegate:)``, plus `.cannotResumeDownload`.
    public func download(for request: NetworkRequest, continuing file: URL, from offset: Int64? = nil,
                         delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> (URL, NetworkResponse) {
        let (request, target) = DownloadContinuation.task(request, continuing: file, from: offset)
        return try await download(request, into: target, delegate: delegate)
    }

    private func download(_ request: NetworkRequest, into target: DownloadTarget,
                          delegate: (any SessionTaskDelegate)?) async throws(NetworkError) -> (URL, NetworkResponse) {
        let task = downloadTask(request, into: target)
        task.delegate = delegate
        return try await task.download()
    }
}

extension Session {
    /// The executor of the event-loop thread that runs this session's requests to `url`'s
    /// origin (scheme, host and port), for code that awaits those requests one after another.
    ///
    /// Run such code with a preference for it, and the requests cost no thread switch:
    ///
    /// ```swift
    /// let executor = session.taskExecutor(for: url)
    /// await withTaskExecutorPreference(executor) {
    ///     for request in requests {
    ///         let (data, response) = try await session.data(for: request)
    ///         // …
    ///     }
    /// }
    /// ```
    ///
    /// Without it, every answer wakes a thread of the global executor and every request wakes
    /// the loop's thread: most of the CPU a small request costs. With it, the awaiting code runs
    /// on the loop's thread, like the single thread of a curl command line. It must not block
    /// there (no blocking I/O that can stall, no lock held long, no semaphore waited on): while
    /// it runs, the thread serves none of the session's connections to that origin. Other
    /// origins, and the session's delegate calls, are unaffected; child tasks inherit the
    /// preference. Once the session is invalidated, the executor hands its work to the global
    /// executor.
    /// - Returns: Nil when `url` cannot be requested (not http or https, no host) or the
    ///   session's engine could not start; `withTaskExecutorPreference(nil)` then runs as usual.
    public func taskExecutor(for url: URL) -> (any TaskExecutor)? {
        guard let (key, engine) = route(of: url) else { return nil }
        return engine.taskExecutor(for: key)
    }
}
