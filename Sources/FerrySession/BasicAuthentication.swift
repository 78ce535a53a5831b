import FoundationEssentials

/// HTTP Basic authentication (RFC 7617), client side: pure.
///
/// The user-pass is always encoded as UTF-8, the one charset RFC 7617 §2.1 lets a server ask
/// for, and what curl sends whatever the server says.
enum BasicAuthentication {
    /// The `Basic …` value of an `Authorization` (or `Proxy-Authorization`) field:
    /// `Basic base64(user ":" password)`.
    /// - Throws: ``AuthenticationFailure/colonInUserName`` (RFC 7617 §2: the server splits at
    ///   the first colon), ``AuthenticationFailure/invalidCharacter(_:)`` for a control
    ///   character in either (RFC 7617 §2 forbids them).
    static func authorization(user: String, password: String) throws(AuthenticationFailure) -> String {
        guard !user.utf8.contains(UInt8(ascii: ":")) else { throw .colonInUserName }
        guard !containsControlCharacter(user) else { throw .invalidCharacter("Basic user name") }
        guard !containsControlCharacter(password) else { throw .invalidCharacter("Basic password") }
        return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Whether `text` holds a C0 or C1 control character or DEL (Unicode category Cc).
    private static func containsControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
