#if canImport(Glibc)
import Glibc
#endif
import FerryEngine
import FerrySession
import FoundationEssentials
import HTTPTypes

extension RequestSerializing {
    /// A `multipart/form-data` request: AFNetworking's
    /// `multipartFormRequestWithMethod:URLString:parameters:constructingBodyWithBlock:error:`.
    ///
    /// `parameters` come first, one form field each, named as the query-string rules name
    /// them (`user[name]`, `tags[]`); then the parts `build` adds. The request gets the
    /// serializer's default headers and timeout, `Content-Type: multipart/form-data;
    /// boundary=…`, `Content-Length`, and a streamed body (``MultipartFormData/requestBody``).
    /// With no part at all it is sent as AFNetworking sends it: an empty
    /// `application/x-www-form-urlencoded` body.
    /// - Parameters:
    ///   - method: POST by default; GET and HEAD are refused (they carry no body).
    ///   - url: The URL to send to.
    ///   - parameters: Form fields to send before the parts.
    ///   - build: Adds the parts, with a random boundary.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` for GET or HEAD,
    ///   or what `build` throws (a missing file, a refused header).
    public func multipartFormRequest(
        method: HTTPRequest.Method = .post, url: URL, parameters: Parameters? = nil,
        constructingBodyWith build: ((inout MultipartFormData) throws(NetworkError) -> Void)? = nil
    ) throws(NetworkError) -> NetworkRequest {
        var form = MultipartFormData()
        try build?(&form)
        return try multipartFormRequest(method: method, url: url, parameters: parameters, formData: form)
    }

    /// ``multipartFormRequest(method:url:parameters:constructingBodyWith:)`` with a form built
    /// already (say, with a boundary of the caller's); `parameters` go before its parts.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` for GET or HEAD.
    public func multipartFormRequest(method: HTTPRequest.Method = .post, url: URL, parameters: Parameters? = nil,
                                     formData: MultipartFormData) throws(NetworkError) -> NetworkRequest {
        guard method != .get, method != .head else {
            throw NetworkError(.invalidRequest, reason: "A multipart form cannot be sent with \(method.rawValue), which has no body: "
                + "use POST, PUT or PATCH", failingURL: url)
        }
        var form = formData
        if let parameters { form.prependFields(from: parameters) }
        var request = try serialize(NetworkRequest(url: url, method: method), with: nil)
        guard !form.isEmpty else { return request }
        // The boundary is the form's, so its Content-Type replaces any other, as AFNetworking does.
        request.headerFields[.contentType] = form.contentType
        request.headerFields[.contentLength] = String(form.contentLength)
        request.body = form.requestBody
        return request
    }

    /// Writes the body of `request` to a new file at `fileURL` and returns the request
    /// without it, for `uploadTask(with:fromFile:)`: AFNetworking's
    /// `requestWithMultipartFormRequest:writingStreamContentsToFile:completionHandler:`
    /// (which exists because some servers refuse a streamed body of an unknown length).
    ///
    /// The body is streamed into a temporary file of mode 0600 beside `fileURL` (created
    /// exclusively, never through a link), then renamed over `fileURL`, so the file is there
    /// whole or not at all. The headers, `Content-Length` included, are kept.
    /// - Throws: ``NetworkError``: ``NetworkError/Code/invalidRequest`` for a request with no
    ///   body; ``NetworkError/Code/cannotCreateFile`` or ``NetworkError/Code/cannotWriteToFile``
    ///   naming the path and the system's reason; what the body's stream throws.
    public func writeMultipartBody(of request: NetworkRequest, to fileURL: URL) async throws(NetworkError) -> NetworkRequest {
        guard let body = request.body else {
            throw NetworkError(.invalidRequest, reason: "The request has no body to write to a file", failingURL: request.url)
        }
        let path = fileURL.path(percentEncoded: false)
        let file = try BodyFileWriter(replacing: path)
        var written: Int64 = 0
        switch body.storage {
        case .bytes(let bytes):
            try file.write(bytes)
            written = Int64(bytes.count)
        case .file(let source):
            written = try Self.copy(source, expectedSize: nil, into: file, url: request.url)
        case .segments(let segments, _):
            for segment in segments {
                switch segment {
                case .bytes(let bytes):
                    try file.write(bytes)
                    written += Int64(bytes.count)
                case .file(let source, let size):
                    written += try Self.copy(source, expectedSize: size, into: file, url: request.url)
                }
            }
        case .stream(let chunks, let length, _):
            do {
                for try await chunk in chunks {
                    try file.write(chunk)
                    written += Int64(chunk.count)
                }
            } catch let error as NetworkError {
                throw error
            } catch {
                throw NetworkError(.requestBodyFailed, reason: "The request's body stream failed: \(error)",
                                   failingURL: request.url, underlyingError: error)
            }
            if let length, length != written {
                throw NetworkError(.requestBodyFailed, reason: "The request's body stream gave \(written) bytes, not the \(length) it announced",
                                   failingURL: request.url)
            }
        }
        try file.commit()
        var bodiless = request
        bodiless.body = nil
        return bodiless
    }

    /// Copies the file at `source` into `file` in slices; returns the bytes copied.
    /// - Throws: ``NetworkError/Code/cannotOpenFile`` for a file that cannot be read,
    ///   ``NetworkError/Code/requestBodyFailed`` for one that is no longer `expectedSize` bytes.
    private static func copy(_ source: String, expectedSize: Int64?, into file: BodyFileWriter, url: URL) throws(NetworkError) -> Int64 {
        func unreadable(_ cause: SystemError) -> NetworkError {
            NetworkError(.cannotOpenFile, reason: "Cannot read the body file \(source): \(cause.errnoText)",
                         failingURL: url, underlyingError: cause)
        }
        let input: UploadFile
        switch UploadFile.open(path: source) {
        case .success(let opened): input = opened
        case .failure(let cause): throw unreadable(cause)
        }
        if let expectedSize, input.size != expectedSize {
            throw NetworkError(.requestBodyFailed, reason: "\(source) is \(input.size) bytes now, not the \(expectedSize) it had when the body was made",
                               failingURL: url)
        }
        var copied: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: MultipartBodyStream.defaultChunkSize)
        while true {
            let count: Int
            switch input.read(into: &buffer) {
            case .success(let read): count = read
            case .failure(let cause): throw unreadable(cause)
            }
            if count == 0 { return copied }
            try file.write(buffer[..<count])
            copied += Int64(count)
        }
    }
}
