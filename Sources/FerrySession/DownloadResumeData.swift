import FoundationEssentials
import HTTPTypes

/// What a download needs to go on where it stopped: URLSession's resume data, opaque to
/// callers and versioned. Encoded as JSON; a caller keeps the bytes, never their fields.
struct DownloadResumeData: Codable, Equatable, Sendable {
    /// How the server names the version of the bytes on disk, sent back in `If-Range`
    /// (RFC 9110 §13.1.5): a strong entity tag, else the last-modified date.
    enum Validator: Codable, Equatable, Sendable {
        case entityTag(String)
        case lastModified(String)

        /// The `If-Range` value.
        var ifRange: String {
            switch self {
            case .entityTag(let tag): tag
            case .lastModified(let date): date
            }
        }
    }

    /// The format this build writes and reads.
    static let currentVersion = 1

    /// The format's version.
    var version = Self.currentVersion
    /// The URL the bytes came from (after redirects).
    var url: URL
    /// The request's own fields, sent again (without `Range` and `If-Range`).
    var headerFields: [Field]
    /// The version of the resource the bytes on disk belong to.
    var validator: Validator
    /// Bytes already on disk.
    var bytesOnDisk: Int64
    /// The file that holds them.
    var partialFilePath: String
    /// The whole file's length, when the server said it.
    var expectedLength: Int64?
    /// Whether the file is a temporary one of Ferry's (a download task's), removed once the
    /// finished download was handed over; else it is the caller's destination, and stays.
    var isTemporary = false
    /// Whether the file is one the caller named to be continued (curl's `-C`): never removed.
    var isCallersFile = false

    /// One request field.
    struct Field: Codable, Equatable, Sendable {
        var name: String
        var value: String
    }

    /// The validator `fields` (a response head's) offer: a strong `ETag`, else (when there is
    /// no tag at all) a strong `Last-Modified`; nil when the response cannot be resumed (a weak
    /// tag, `W/"…"`, may not be used with ranges, and rules the date out too).
    ///
    /// RFC 9110 §13.1.5 allows a date in `If-Range` only when it is strong (§8.8.2.2): the
    /// response's `Date` at least a second after it. A resource changed twice within its
    /// last-modified second keeps that date, and its parts must not be joined.
    static func validator(in fields: HTTPFields) -> Validator? {
        if let tag = fields[.eTag] {
            // RFC 9110 §13.1.5: no date either when the representation has a weak tag.
            return tag.hasPrefix("\"") && tag.count >= 2 && tag.hasSuffix("\"") ? .entityTag(tag) : nil
        }
        // The cookie date algorithm reads every form an HTTP-date may take.
        guard let text = fields[.lastModified], let modified = SetCookieParser.cookieDate(text),
              let sent = fields[.date].flatMap(SetCookieParser.cookieDate), sent.timeIntervalSince(modified) >= 1 else {
            return nil
        }
        return .lastModified(text)
    }

    /// The bytes a caller keeps.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Every field is a string, a number or an array of them: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Reads resume data a caller gave back.
    /// - Throws: ``ResumeDataError`` when the bytes are not Ferry's resume data, or are of
    ///   another version.
    static func decode(_ data: Data) throws(ResumeDataError) -> DownloadResumeData {
        struct Versioned: Decodable { var version: Int }
        guard let versioned = try? JSONDecoder().decode(Versioned.self, from: data) else {
            throw .corrupt("not Ferry's resume data (\(data.count) bytes)")
        }
        guard versioned.version == currentVersion else { throw .unsupportedVersion(versioned.version) }
        let decoded: DownloadResumeData
        do {
            decoded = try JSONDecoder().decode(DownloadResumeData.self, from: data)
        } catch {
            throw .corrupt("resume data version \(versioned.version) lacks a field: \(error)")
        }
        // Ferry writes resume data only with bytes on disk.
        guard decoded.bytesOnDisk > 0, !decoded.partialFilePath.isEmpty,
              decoded.expectedLength.map({ $0 >= decoded.bytesOnDisk }) ?? true else {
            throw .corrupt("resume data says \(decoded.bytesOnDisk) bytes in \"\(decoded.partialFilePath)\"")
        }
        return decoded
    }
}

/// Why resume data cannot be used.
enum ResumeDataError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not resume data Ferry wrote.
    case corrupt(String)
    /// Resume data of a format this build does not read.
    case unsupportedVersion(Int)

    var description: String {
        switch self {
        case .corrupt(let why): "Cannot resume the download: \(why)"
        case .unsupportedVersion(let version):
            "Cannot resume the download: resume data of version \(version), this build reads version \(DownloadResumeData.currentVersion)"
        }
    }
}
