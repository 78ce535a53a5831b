import FerryBase
import FerryTLS
import Synchronization

/// A session's TLS context, built on its first HTTPS request: a session that only speaks plain
/// HTTP never pays for OpenSSL's TLS set-up (its configuration file, cipher tables, memory).
/// Built once; every later HTTPS request shares it, and with it the session cache.
final class LazyTLSContext: Sendable {
    private let configuration: TLSConfiguration
    private let asksForClientIdentity: Bool
    private let built = Locked<Result<TLSClientContext, TLSError>?>(nil)

    init(configuration: TLSConfiguration, asksForClientIdentity: Bool) {
        self.configuration = configuration
        self.asksForClientIdentity = asksForClientIdentity
    }

    /// The context if it was built (nil: no HTTPS request was made yet).
    var builtContext: TLSClientContext? {
        built.withLock { built in
            guard case .success(let context)? = built else { return nil }
            return context
        }
    }

    /// The context, or why OpenSSL refused the configuration (the same answer every time).
    var context: Result<TLSClientContext, TLSError> {
        built.withLock { built in
            if let built { return built }
            let result = Result { () throws(TLSError) in
                try TLSClientContext(configuration: configuration, asksForClientIdentity: asksForClientIdentity)
            }
            built = result
            return result
        }
    }
}
