// A scratch directory for one test, removed with the value.
import Foundation

/// A temporary directory removed when the value is released.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a fresh, empty directory under the system's temporary directory.
    /// - Throws: Foundation's error when it cannot be created.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the directory.
    /// - Parameter name: a file name.
    /// - Returns: the path.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The bytes of `name`, or nil when it does not exist.
    /// - Parameter name: a file name.
    /// - Returns: the file's contents.
    public func contents(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path(name)).map(Array.init)
    }
}
