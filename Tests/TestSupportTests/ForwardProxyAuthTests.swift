import Foundation
import Testing

@testable import TestSupport

/// ForwardProxy's proxy authentication: Basic and Digest challenges, retries on the same
/// connection, and curl as an independent client.
@Suite struct ForwardProxyAuthTests {
    @Test func basicAuthenticationAnswers407ThenServesOnTheSameConnection() async throws {
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy(authentication: .basic(user: "user", password: "pa:ss")) { proxy in
                let client = try ProxyTest.client(proxy)
                defer { client.close() }
                let request = "GET \(origin.baseURLString)/get HTTP/1.1\r\nHost: x\r\n"
                try await client.send(request + "\r\n")
                let challenged = try await client.readResponse()
                #expect(challenged.status == 407)
                #expect(challenged.header("Proxy-Authenticate") == "Basic realm=\"ferry-proxy\"")
                #expect(challenged.header("Connection") == nil)
                #expect(!challenged.body.isEmpty)
                let wrong = Data("user:wrong".utf8).base64EncodedString()
                try await client.send(request + "Proxy-Authorization: Basic \(wrong)\r\n\r\n")
                #expect(try await client.readResponse().status == 407)
                let right = Data("user:pa:ss".utf8).base64EncodedString()
                try await client.send(request + "Proxy-Authorization: Basic \(right)\r\n\r\n")
                #expect(try await client.readResponse().status == 200)
                #expect(origin.requestCount == 1)
                #expect(origin.lastRequest?.value(of: "proxy-authorization") == nil)
                #expect(proxy.connectionCount == 1)
                // A CONNECT needs the credentials too.
                try await client.send("CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\nProxy-Authorization: Basic \(right)\r\n\r\n")
                #expect(try await client.readInterimStatusLine() == "HTTP/1.1 200 Connection established")
            }
        }
    }

    @Test func a407ClosesWhenTheClientAskedToClose() async throws {
        try await ForwardProxy.withProxy(authentication: .basic(user: "u", password: "p")) { proxy in
            let client = try ProxyTest.client(proxy)
            defer { client.close() }
            try await client.send("GET http://127.0.0.1:1/ HTTP/1.1\r\nConnection: close\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 407)
            #expect(response.header("Connection") == "close")
            #expect(await client.serverClosed(within: .seconds(10)))
        }
    }

    @Test(arguments: [ForwardProxy.DigestAlgorithm.md5, .sha256])
    func digestAuthenticationAnswers407ThenServes(algorithm: ForwardProxy.DigestAlgorithm) async throws {
        try await HTTPBinServer.withServer { origin in
            let authentication = ForwardProxy.Authentication.digest(user: "dig", password: "secret", realm: "proxy-realm")
            try await ForwardProxy.withProxy(authentication: authentication) { proxy in
                let client = try ProxyTest.client(proxy)
                defer { client.close() }
                // A plain request: the digest's uri is the absolute-form target.
                let target = "\(origin.baseURLString)/get"
                try await client.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
                let challenged = try await client.readResponse()
                #expect(challenged.status == 407)
                let challenges = challenged.head.fields.filter { $0.name == "Proxy-Authenticate" }.map(\.value)
                #expect(challenges.count == 2)
                #expect(challenges.first?.contains("algorithm=SHA-256") == true)
                let challenge = try #require(challenges.first { $0.contains("algorithm=\(algorithm.rawValue),") })
                let answer = try ProxyTest.digestAnswer(
                    challenge, algorithm: algorithm.rawValue, method: "GET", uri: target, user: "dig", password: "secret")
                try await client.send("GET \(target) HTTP/1.1\r\nHost: x\r\nProxy-Authorization: \(answer)\r\n\r\n")
                #expect(try await client.readResponse().status == 200)
                #expect(origin.lastRequest?.value(of: "proxy-authorization") == nil)
                // The same answer for another uri is refused.
                try await client.send("GET \(target)?other HTTP/1.1\r\nHost: x\r\nProxy-Authorization: \(answer)\r\n\r\n")
                #expect(try await client.readResponse().status == 407)
                // CONNECT: the uri is host:port.
                let authority = "127.0.0.1:\(origin.port)"
                let connectAnswer = try ProxyTest.digestAnswer(
                    challenge, algorithm: algorithm.rawValue, method: "CONNECT", uri: authority, user: "dig", password: "secret")
                try await client.send("CONNECT \(authority) HTTP/1.1\r\nProxy-Authorization: \(connectAnswer)\r\n\r\n")
                #expect(try await client.readInterimStatusLine() == "HTTP/1.1 200 Connection established")
                #expect(proxy.tunnelTargets == [authority])
            }
        }
    }

    @Test func digestAnswerToAnUnknownNonceIsStale() async throws {
        let authentication = ForwardProxy.Authentication.digest(user: "u", password: "p", algorithms: [.md5])
        try await ForwardProxy.withProxy(authentication: authentication) { proxy in
            let client = try ProxyTest.client(proxy)
            defer { client.close() }
            try await client.send("CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n")
            let challenge = try #require(try await client.readResponse().header("Proxy-Authenticate"))
            let forged = challenge.replacingOccurrences(of: #"nonce=""#, with: #"nonce="0"#)
            let answer = try ProxyTest.digestAnswer(forged, algorithm: "MD5", method: "CONNECT", uri: "127.0.0.1:1", user: "u", password: "p")
            try await client.send("CONNECT 127.0.0.1:1 HTTP/1.1\r\nProxy-Authorization: \(answer)\r\n\r\n")
            let stale = try await client.readResponse()
            #expect(stale.status == 407)
            #expect(stale.header("Proxy-Authenticate")?.hasSuffix("stale=true") == true)
            #expect(proxy.connectAttempts.isEmpty)
        }
    }

    @Test func curlAuthenticatesWithDigestAndBasic() async throws {
        // Digest for a tunnel: the 407 and the retry on one connection.
        try await TLSTestServer.withServer { tlsOrigin in
            let digest = ForwardProxy.Authentication.digest(user: "curl", password: "pw", algorithms: [.md5])
            try await ForwardProxy.withProxy(authentication: digest) { proxy in
                let result = try await ProxyTest.curl(
                    ["--proxy", proxy.proxyURLString, "--proxy-digest", "--proxy-user", "curl:pw",
                     "--cacert", TestCertificateFiles.path("root-ca.pem")],
                    tlsOrigin.url("/get"))
                #expect(result.status == 0, "\(result)")
                #expect(proxy.receivedRequests.map(\.method) == ["CONNECT", "CONNECT"])
                #expect(proxy.connectionCount == 1)
                #expect(proxy.tunnelCount == 1)
            }
        }
        // Digest for a plain request: curl's uri is the origin-form, which the proxy accepts.
        try await HTTPBinServer.withServer { origin in
            let digest = ForwardProxy.Authentication.digest(user: "curl", password: "pw", algorithms: [.sha256])
            try await ForwardProxy.withProxy(authentication: digest) { proxy in
                let result = try await ProxyTest.curl(
                    ["--fail", "--proxy", proxy.proxyURLString, "--proxy-digest", "--proxy-user", "curl:pw"],
                    origin.url("/get?x=1"))
                #expect(result.status == 0, "\(result)")
                let answer = try #require(proxy.lastRequest?.value(of: "proxy-authorization"))
                #expect(DigestVerifier.parameters(String(answer.dropFirst("Digest ".count)))?["uri"] == "/get?x=1")
                #expect(origin.requestCount == 1)
            }
        }
        try await HTTPBinServer.withServer { origin in
            try await ForwardProxy.withProxy(authentication: .basic(user: "curl", password: "pw")) { proxy in
                let result = try await ProxyTest.curl(
                    ["--fail", "--proxy", proxy.proxyURLString, "--proxy-basic", "--proxy-user", "curl:pw"], origin.url("/get"))
                #expect(result.status == 0, "\(result)")
                #expect(try HTTPBinTest.json(result.stdout)["method"] as? String == "GET")
                #expect(origin.lastRequest?.value(of: "proxy-authorization") == nil)
            }
        }
    }
}
