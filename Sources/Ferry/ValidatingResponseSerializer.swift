import FerrySession
import FoundationEssentials

/// A response serializer that validates with an ``HTTPResponseSerializer`` before it reads the
/// body (AFNetworking's serializers all inherit AFHTTPResponseSerializer's validation): its
/// ``acceptableStatusCodes`` and ``acceptableContentTypes`` are that serializer's.
public protocol ValidatingResponseSerializer: ResponseSerializing {
    /// The status and content-type check run first.
    var http: HTTPResponseSerializer { get set }
}

extension ValidatingResponseSerializer {
    /// Status codes accepted; 200–299 by default; nil accepts any.
    public var acceptableStatusCodes: Set<Int>? {
        get { http.acceptableStatusCodes }
        set { http.acceptableStatusCodes = newValue }
    }

    /// MIME types accepted (lower case, without parameters); the serializer's own by default;
    /// nil accepts any.
    public var acceptableContentTypes: Set<String>? {
        get { http.acceptableContentTypes }
        set { http.acceptableContentTypes = newValue }
    }
}
