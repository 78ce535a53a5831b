// Where the committed TLS test certificates live, for every test target and the TLS test server.
import Foundation

/// The files of `Tests/TestSupport/Certificates` (made by `Scripts/make-test-certificates`),
/// located from this source file's `#filePath` rather than shipped as bundle resources, so every
/// test target shares one copy and `openssl`/`curl` can be pointed at the same paths.
public enum TestCertificateFiles {
    /// `Tests/TestSupport/Certificates`.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Certificates", isDirectory: true)

    /// The file `name` (with its extension, e.g. `"leaf.pem"`) in ``directory``; an absolute
    /// path is taken as it is, so callers may also name a file of their own.
    /// - Parameter name: a file name such as `"root-ca.pem"`, or an absolute path.
    /// - Returns: the file's URL.
    public static func url(_ name: String) -> URL {
        name.hasPrefix("/") ? URL(fileURLWithPath: name) : directory.appendingPathComponent(name)
    }

    /// ``url(_:)`` as a file system path, for command-line tools and NIOSSL.
    /// - Parameter name: a file name such as `"root-ca.pem"`, or an absolute path.
    /// - Returns: the file's path.
    public static func path(_ name: String) -> String {
        url(name).path
    }

    /// The text of file `name`.
    /// - Parameter name: a file name such as `"leaf.pem"`.
    /// - Returns: the file's contents decoded as UTF-8.
    /// - Throws: Foundation's error when the file cannot be read.
    public static func text(_ name: String) throws -> String {
        try String(contentsOf: url(name), encoding: .utf8)
    }

    /// The bytes of file `name`.
    /// - Parameter name: a file name such as `"leaf.der"`.
    /// - Returns: the file's contents.
    /// - Throws: Foundation's error when the file cannot be read.
    public static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(name)))
    }
}
