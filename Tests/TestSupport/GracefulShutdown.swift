/// A test server that can be stopped, waiting until its connections are closed.
public protocol GracefulShutdown: AnyObject, Sendable {
    /// Stops accepting, closes every connection and waits until they are gone.
    func shutdownGracefully() async
}

extension GracefulShutdown {
    /// Runs `body` with this server and shuts the server down afterwards, also when `body` throws.
    /// - Parameters:
    ///   - isolation: the caller's actor, filled in by the compiler.
    ///   - body: the test.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: (Self) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            await shutdownGracefully()
            return result
        } catch {
            await shutdownGracefully()
            throw error
        }
    }
}
