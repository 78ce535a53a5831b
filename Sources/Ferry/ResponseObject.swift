import FerrySession
import FoundationEssentials

/// Lets a value typed `any Sendable` be asked whether it is a nil optional.
private protocol NilComparable {
    var isNil: Bool { get }
}

extension Optional: NilComparable {
    fileprivate var isNil: Bool { self == nil }
}

/// `value` as AFNetworking's `id responseObject`: nil for a nil optional (an empty JSON body),
/// so that `responseObject == nil` means what it says. A present optional stays wrapped;
/// `as?` casts see through it.
func responseObject(_ value: any Sendable) -> (any Sendable)? {
    if let optional = value as? any NilComparable, optional.isNil { return nil }
    return value
}

/// A manager's ``SessionManager/responseSerializer`` as one concrete serializer, whose value
/// is AFNetworking's `responseObject`.
struct ResponseObjectSerializer: ResponseSerializing {
    let base: any ResponseSerializing

    func serialize(_ response: NetworkResponse, data: Data?) throws(NetworkError) -> (any Sendable)? {
        responseObject(try base.serialize(response, data: data))
    }
}
