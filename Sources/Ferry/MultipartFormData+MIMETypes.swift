extension MultipartFormData {
    /// The media type of a file with extension `pathExtension` (without the dot, any case):
    /// Ferry's built-in table of common types (text, documents, images, audio, video,
    /// archives, certificates, fonts), else `application/octet-stream`. AFNetworking asks the platform's
    /// type registry (`UTTypeCopyPreferredTagWithClass`); Linux has none a library can rely
    /// on, so the table is fixed and the same everywhere.
    public static func mimeType(forPathExtension pathExtension: String) -> String {
        mimeTypes[pathExtension.lowercased()] ?? "application/octet-stream"
    }

    private static let mimeTypes: [String: String] = [
        // Text
        "txt": "text/plain", "text": "text/plain", "log": "text/plain",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "md": "text/markdown", "markdown": "text/markdown",
        "ics": "text/calendar", "vcf": "text/vcard",
        "js": "text/javascript", "mjs": "text/javascript",
        // Structured data and documents
        "json": "application/json", "xml": "application/xml", "yaml": "application/yaml", "yml": "application/yaml",
        "pdf": "application/pdf", "rtf": "application/rtf", "wasm": "application/wasm",
        "plist": "application/x-plist", "epub": "application/epub+zip",
        "doc": "application/msword", "xls": "application/vnd.ms-excel", "ppt": "application/vnd.ms-powerpoint",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "bmp": "image/bmp", "ico": "image/vnd.microsoft.icon", "tif": "image/tiff",
        "tiff": "image/tiff", "heic": "image/heic", "heif": "image/heif", "avif": "image/avif",
        // Audio
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus",
        "m4a": "audio/mp4", "aac": "audio/aac", "flac": "audio/flac", "mid": "audio/midi", "midi": "audio/midi",
        // Video
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "mpeg": "video/mpeg", "mpg": "video/mpeg",
        "ogv": "video/ogg", "3gp": "video/3gpp",
        // Archives and binaries
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "zst": "application/zstd", "7z": "application/x-7z-compressed",
        "rar": "application/vnd.rar", "jar": "application/java-archive", "bin": "application/octet-stream",
        // Certificates and keys (an app uploading its client certificate or a CSR)
        "cer": "application/pkix-cert", "crt": "application/x-x509-ca-cert", "der": "application/x-x509-ca-cert",
        "pem": "application/x-pem-file", "p12": "application/x-pkcs12", "pfx": "application/x-pkcs12",
        "csr": "application/pkcs10", "p10": "application/pkcs10", "crl": "application/pkix-crl",
        // Fonts
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
    ]
}
