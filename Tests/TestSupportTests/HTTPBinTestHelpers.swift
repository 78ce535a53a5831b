import Foundation
import Testing

@testable import TestSupport

/// Shared helpers for the HTTPBinServer tests.
enum HTTPBinTest {
    /// Sends one request on a new connection and reads one response.
    static func fetch(
        _ server: HTTPBinServer, _ target: String, method: String = "GET",
        headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws -> RawHTTPResponse {
        let client = try RawHTTPClient(port: server.port)
        defer { client.close() }
        try await client.sendRequest(method, target, headers: headers, body: body)
        return try await client.readResponse(isHEAD: method == "HEAD")
    }

    /// The body parsed as a JSON object.
    static func json(_ response: RawHTTPResponse) throws -> [String: Any] {
        try json(response.body)
    }

    /// Bytes parsed as a JSON object.
    static func json(_ bytes: [UInt8]) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(bytes))
        return try #require(object as? [String: Any])
    }
}
