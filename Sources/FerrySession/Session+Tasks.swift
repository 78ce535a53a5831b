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
        DownloadTask(session: self, identifier: nextTaskIdentifier(), request: request, sink: .file(destination: nil), kind: .download)
    }

    /// A task that writes the body of `request` to a temporary file and calls
    /// `completionHandler` with its URL and the response, or with the error. Move or open the
    /// file before the handler returns: it is removed afterwards.
    public func downloadTask(
        with request: NetworkRequest,
        completionHandler: @escaping @Sendable (URL?, NetworkResponse?, NetworkError?) -> Void
    ) -> DownloadTask {
        let task = DownloadTask(session: self, identifier: nextTaskIdentifier(), request: request,
                                sink: .file(destination: nil), kind: .download)
        _ = task.attachCompletion(.handler { outcome in
            switch outcome {
            case .success(let result): completionHandler(result.location, result.response, nil)
            case .failure(let error): completionHandler(nil, error.response, error)
            }
        })
        return task
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
