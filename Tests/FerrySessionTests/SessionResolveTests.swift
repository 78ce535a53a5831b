import Foundation
import Testing
import TestSupport

@testable import FerrySession

/// ``SessionConfiguration/resolvedAddresses``: curl's `--resolve`.
@Suite struct SessionResolveTests {
    // `.invalid` never resolves (RFC 6761 §6.4), and the entry means no lookup is even tried,
    // so nothing leaves the machine.
    @Test("a resolved address is connected to while the URL's host names the server")
    func resolvedAddressIsUsed() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.resolvedAddresses = ["ferry.invalid": "127.0.0.1"]
            })
            defer { session.invalidateAndCancel() }
            let url = try #require(URL(string: "http://ferry.invalid:\(server.port)/get"))
            let (data, response) = try await session.data(for: NetworkRequest(url: url))
            #expect(response.statusCode == 200)
            let headers = try SessionTest.headers(try SessionTest.json(data))
            #expect(headers["Host"] == "ferry.invalid:\(server.port)")
        }
    }
}
