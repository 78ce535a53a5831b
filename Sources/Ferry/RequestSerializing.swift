import FerrySession
import FoundationEssentials
import HTTPTypes

/// Turns a method, a URL and parameters into the request a manager sends: the counterpart of
/// AFNetworking's `AFURLRequestSerialization`. Pure and `Sendable`, so users write their own
/// (a signing serializer, a protocol-buffer body) and a manager can use it from any thread.
public protocol RequestSerializing: Sendable {
    /// `request` with this serializer's headers and `parameters` applied (in the URL's query or
    /// in the body, as the serializer decides). With nil parameters, ``HTTPRequestSerializer``
    /// still gives a body method an empty form body, as AFNetworking does; a serializer of
    /// another body format starts from ``HTTPRequestSerializer/applyingDefaults(to:)`` instead.
    /// - Throws: ``NetworkError`` when the parameters cannot be written (say, a value JSON has
    ///   no form for) or a header is refused.
    func serialize(_ request: NetworkRequest, with parameters: Parameters?) throws(NetworkError) -> NetworkRequest
}

extension RequestSerializing {
    /// A new request for `method` to `url`, serialized with `parameters`: AFNetworking's
    /// `requestWithMethod:URLString:parameters:error:`.
    public func request(method: HTTPRequest.Method, url: URL, parameters: Parameters? = nil) throws(NetworkError)
        -> NetworkRequest {
        try serialize(NetworkRequest(url: url, method: method), with: parameters)
    }
}
