import FerrySession
import FoundationEssentials

/// Turns a response and its body into a value, or refuses them: the counterpart of
/// AFNetworking's `AFURLResponseSerialization`. Pure and `Sendable`, so users write their own
/// and a manager can run it on any thread; its value crosses threads too.
public protocol ResponseSerializing: Sendable {
    /// What a response becomes.
    associatedtype Value: Sendable

    /// The value of `data` received with `response`.
    /// - Throws: ``NetworkError`` when the response is refused (an unacceptable status or
    ///   content type) or its body cannot be read as the serializer expects; the error carries
    ///   the response and the (capped) body, as AFNetworking's failing-response keys do.
    func serialize(_ response: NetworkResponse, data: Data?) throws(NetworkError) -> Value
}
