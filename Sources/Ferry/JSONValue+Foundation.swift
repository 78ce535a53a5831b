#if FoundationSerializers
// AFNetworking's `id responseObject` for drop-in ports: JSONSerialization's objects made from a
// JSONValue on the caller's thread (they are not Sendable, so a serializer cannot hand them
// across threads). Needs the full Foundation: behind the FoundationSerializers trait.
import FerrySession
import Foundation

extension JSONValue {
    /// The value as `JSONSerialization.jsonObject(with:)` returns it: `[String: Any]`
    /// (`NSDictionary`), `[Any]`, `String`, `NSNumber` for numbers and booleans, `NSNull`.
    /// Made anew on each call, on the caller's thread:
    /// `(responseObject as? JSONValue)?.foundationObject as? [String: Any]`.
    public var foundationObject: Any {
        switch self {
        case .object(let members): members.mapValues(\.foundationObject) as [String: Any]
        case .array(let elements): elements.map(\.foundationObject) as [Any]
        case .string(let text): text
        case .int(let number): NSNumber(value: number)
        case .double(let number): NSNumber(value: number)
        case .bool(let truth): NSNumber(value: truth)
        case .null: NSNull()
        }
    }

    /// A JSON value from what `JSONSerialization` returns (or a tree of the same types); nil
    /// for anything JSON cannot hold (a date, data, a non-string key).
    public init?(foundationObject object: Any) {
        // A Swift Bool first: an NSNumber would also cast to Bool, and a Bool to NSNumber.
        if type(of: object) == Bool.self, let truth = object as? Bool {
            self = .bool(truth)
            return
        }
        switch object {
        case is NSNull: self = .null
        case let text as String: self = .string(text)
        case let number as NSNumber:
            // What the number holds, as its Objective-C type code says.
            switch String(cString: number.objCType) {
            case "c", "B": self = .bool(number.boolValue)
            case "f", "d": self = .double(number.doubleValue)
            case "Q", "L", "I": self = number.uint64Value > UInt64(Int.max) ? .double(number.doubleValue) : .int(number.intValue)
            default: self = .int(number.intValue)
            }
        case let elements as [Any]:
            var values: [JSONValue] = []
            for element in elements {
                guard let value = JSONValue(foundationObject: element) else { return nil }
                values.append(value)
            }
            self = .array(values)
        case let members as [String: Any]:
            var values: [String: JSONValue] = [:]
            for (name, member) in members {
                guard let value = JSONValue(foundationObject: member) else { return nil }
                values[name] = value
            }
            self = .object(values)
        default:
            return nil
        }
    }
}
#endif
