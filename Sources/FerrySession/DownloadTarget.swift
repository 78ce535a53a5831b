#if canImport(Glibc)
import Glibc
#endif
import FerryIO
import FoundationEssentials
import HTTPTypes

/// Where a download task writes, fixed when the task is made. Indirect: one word in every
/// task's sink, with a box only for a task that continues a file.
indirect enum DownloadTarget {
    /// A new temporary file, removed once it was handed over.
    case temporary
    /// The caller's file, created or truncated; it stays.
    case destination(String)
    /// A file whose first bytes are on disk already: the download goes on from there.
    case continuing(DownloadContinuation)
    /// A continuation that cannot run (resume data that is corrupt or of another version):
    /// the task fails with this error when it starts.
    case unusable(NetworkError)

    /// Whether the finished file is handed over (to the completion handler or awaiting caller,
    /// else to the download delegate's `didFinishDownloadingTo`): every download task's but one
    /// to a destination of the caller's own, which is where it belongs already.
    var handsOver: Bool {
        switch self {
        case .temporary, .continuing: true
        case .destination, .unusable: false
        }
    }

    /// Whether the finished file is Ferry's own, removed once handed over (the completion
    /// handler or the download delegate must move or open it first; an awaiting call returns
    /// it to its caller instead).
    var removesFile: Bool {
        switch self {
        case .temporary: true
        case .continuing(let continuation): continuation.isTemporary && !continuation.isCallersFile
        case .destination, .unusable: false
        }
    }
}

/// A download that goes on from the bytes already in a file: from resume data
/// (``Session/downloadTask(withResumeData:)``), or from a file the caller names (curl's `-C`).
struct DownloadContinuation: Sendable {
    /// The file.
    var path: String
    /// How many of its bytes are kept: the request asks for the rest (`Range: bytes=offset-`).
    var offset: Int64
    /// The version of the resource those bytes belong to, sent in `If-Range`. Without one, a
    /// 200 cannot say whether the resource changed, so it is refused rather than overwriting
    /// the file (curl's rule for `-C`).
    var validator: DownloadResumeData.Validator?
    /// The whole resource's length, when known.
    var expectedLength: Int64?
    /// A temporary file of Ferry's, removed once handed over.
    var isTemporary: Bool
    /// The caller named the file (curl's `-C`): it is never removed, whatever happens.
    var isCallersFile: Bool
    /// The path may be followed through a symbolic link: only one the caller passed now, never
    /// one read from resume data (outside input).
    var followsLinks = false

    /// The task that resume data continues: its request and target. Data that cannot be read
    /// makes a target that fails the task when it starts, as URLSession's task does.
    static func task(resumingFrom data: Data) -> (NetworkRequest, DownloadTarget) {
        let resume: DownloadResumeData
        do throws(ResumeDataError) {
            resume = try DownloadResumeData.decode(data)
        } catch {
            // The task needs a URL; the error has none, since the data named none that could be read.
            let placeholder = NetworkRequest(url: URL(string: "about:blank")!)
            return (placeholder, .unusable(NetworkError(SessionFailure.cannotResume(.resumeData(error)), url: nil)))
        }
        var request = NetworkRequest(url: resume.url)
        for field in resume.headerFields {
            // Decoded text: a name or value that is no longer valid is dropped, not sent.
            guard let name = HTTPField.Name(field.name), HTTPField.isValidValue(field.value) else { continue }
            request.headerFields.append(HTTPField(name: name, value: field.value))
        }
        // Resume data names a temporary file of Ferry's only, in the temporary directory: data
        // anyone could have edited must not point a download at another file. (A file of the
        // caller's is continued by naming it again: downloadTask(with:continuing:from:).)
        guard !resume.isCallersFile else {
            let failure = ResumeFailure.resumeData(.corrupt(
                "it names a file of your own (\"\(resume.partialFilePath)\"): continue that with downloadTask(with:continuing:from:)"))
            return (request, .unusable(NetworkError(SessionFailure.cannotResume(failure), url: resume.url)))
        }
        guard resume.isTemporary, DownloadFile.isTemporaryPath(resume.partialFilePath) else {
            let failure = ResumeFailure.resumeData(.corrupt("\"\(resume.partialFilePath)\" is not one of Ferry's temporary files"))
            return (request, .unusable(NetworkError(SessionFailure.cannotResume(failure), url: resume.url)))
        }
        let continuation = DownloadContinuation(
            path: resume.partialFilePath, offset: resume.bytesOnDisk, validator: resume.validator,
            expectedLength: resume.expectedLength, isTemporary: true, isCallersFile: false)
        return (continuation.asking(request), .continuing(continuation))
    }

    /// The task that continues the caller's `file` from `offset` (nil: from its end) with
    /// `request`. A missing or empty file, or an offset of 0, is an ordinary download into it
    /// (created if missing, its old bytes cut at the first write); either way the file is never
    /// removed.
    static func task(_ request: NetworkRequest, continuing file: URL, from offset: Int64?) -> (NetworkRequest, DownloadTarget) {
        let path = file.path
        if let offset, offset < 0 {
            let failure = ResumeFailure.mismatch("the offset \(offset) is negative")
            return (request, .unusable(NetworkError(SessionFailure.cannotResume(failure), url: request.url)))
        }
        var start = offset ?? 0
        if offset == nil {
            var info = stat()
            if stat(path, &info) == 0 { start = Int64(info.st_size) }
        }
        let continuation = DownloadContinuation(path: path, offset: start, validator: nil, expectedLength: nil,
                                                isTemporary: false, isCallersFile: true, followsLinks: true)
        return (continuation.asking(request), .continuing(continuation))
    }

    /// `request` asking for the bytes after ``offset``: `Range`, `If-Range` with the
    /// validator, and the identity encoding unless the caller chose one (a range of a
    /// compressed body could not be decoded on its own). From offset 0: the request as it is.
    func asking(_ request: NetworkRequest) -> NetworkRequest {
        guard offset > 0 else { return request }
        var request = request
        request.headerFields[.range] = "bytes=\(offset)-"
        request.headerFields[.ifRange] = validator?.ifRange
        if request.headerFields[.acceptEncoding] == nil { request.headerFields[.acceptEncoding] = "identity" }
        return request
    }
}

/// Why a download cannot go on from the bytes on disk.
enum ResumeFailure: Error, CustomStringConvertible {
    /// The resume data cannot be read.
    case resumeData(ResumeDataError)
    /// The partial file cannot be opened (it is gone, or not readable).
    case partialFile(path: String, SystemError)
    /// The path names a directory, a device, a FIFO or a socket.
    case notRegularFile(path: String)
    /// The partial file holds fewer bytes than the download would continue from.
    case partialFileShort(path: String, size: Int64, offset: Int64)
    /// The server's answer does not fit the bytes on disk.
    case mismatch(String)
    /// The server answered the range request with another status.
    case status(Int)

    var description: String {
        switch self {
        case .resumeData(let error): error.description
        case .partialFile(let path, let error): "Cannot continue the download in \(path): \(error.errnoText)"
        case .notRegularFile(let path): "Cannot continue the download in \(path): it is not a regular file"
        case .partialFileShort(let path, let size, let offset):
            "Cannot continue the download at byte \(offset): \(path) holds \(size) bytes"
        case .mismatch(let why): "Cannot continue the download: \(why)"
        case .status(let status): "Cannot continue the download: the server answered the range request with \(status)"
        }
    }
}
