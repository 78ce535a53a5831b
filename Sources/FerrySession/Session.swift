import Dispatch
import Foundation

/// Loads requests over HTTP/1.1 with Ferry's engine: the counterpart of `URLSession`.
///
/// A session owns its event loops and connection pool; requests to the same host reuse
/// keep-alive connections. Create one per configuration and share it.
public final class Session: Sendable {
    /// The configuration the session was created with (a copy).
    public let configuration: SessionConfiguration
    /// The serial queue on which delegate methods run.
    public let delegateQueue: DispatchQueue

    /// Creates a session.
    /// - Parameters:
    ///   - configuration: How the session behaves.
    ///   - delegateQueue: Where delegate methods run; a new serial queue by default.
    public init(configuration: SessionConfiguration = .default, delegateQueue: DispatchQueue? = nil) {
        self.configuration = configuration
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "ferry.session.delegate")
    }
}
