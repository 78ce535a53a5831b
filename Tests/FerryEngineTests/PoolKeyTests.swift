// PoolKey: what keeps connections apart (the whole key) and what picks the loop (its loop
// affinity: origin and route only).
import FerryTLS
import HTTPTypes
import Testing

@testable import FerryEngine

@Suite("PoolKey")
struct PoolKeyTests {
    static func tunnel(_ fields: HTTPFields = HTTPFields()) -> PoolRoute {
        .tunnel(TunnelProxy(host: "proxy.test", port: 3128, connectFields: fields))
    }

    @Test func theTLSContextAndConnectFieldsSeparateConnectionsButNotLoops() throws {
        let context = try TLSClientContext(configuration: TLSConfiguration())
        var credentials = HTTPFields()
        credentials[.proxyAuthorization] = "Basic dXNlcjpwYXNz"
        credentials[.userAgent] = "agent/1"
        let plain = PoolKey(scheme: "https", host: "example.test", port: 443, route: Self.tunnel())
        let variants = [
            PoolKey(scheme: "https", host: "example.test", port: 443, tls: context, route: Self.tunnel()),
            PoolKey(scheme: "https", host: "example.test", port: 443, route: Self.tunnel(credentials)),
            PoolKey(scheme: "https", host: "EXAMPLE.test", port: 443, tls: context, route: Self.tunnel(credentials)),
        ]
        for key in variants {
            #expect(key.loopAffinity == plain.loopAffinity, "\(key)")
        }
        #expect(variants[0] != plain && variants[1] != plain, "no connection is shared across them")
    }

    @Test func theOriginAndTheWayThereTellLoopsApart() {
        let base = PoolKey(scheme: "https", host: "example.test", port: 443)
        let others = [
            PoolKey(scheme: "http", host: "example.test", port: 443),
            PoolKey(scheme: "https", host: "other.test", port: 443),
            PoolKey(scheme: "https", host: "example.test", port: 8443),
            PoolKey(scheme: "https", host: "example.test", port: 443, route: Self.tunnel()),
            PoolKey(scheme: "https", host: "example.test", port: 443, route: .forwardingProxy),
        ]
        for key in others {
            #expect(key.loopAffinity != base.loopAffinity, "\(key)")
        }
    }

    @Test func aKeyChangedAfterItWasMadeHashesAndComparesAsOneMadeThatWay() throws {
        let context = try TLSClientContext(configuration: TLSConfiguration())
        var credentials = HTTPFields()
        credentials[.proxyAuthorization] = "Basic dXNlcjpwYXNz"
        let made = PoolKey(scheme: "https", host: "example.test", port: 443, tls: context, route: Self.tunnel(credentials))
        // What RequestPreparation and then Session do: the route set, then the TLS context.
        var changed = PoolKey(scheme: "https", host: "Example.test", port: 443)
        changed.route = Self.tunnel(credentials)
        let routed = changed
        #expect(routed.hashValue == PoolKey(scheme: "https", host: "example.test", port: 443,
                                            route: Self.tunnel(credentials)).hashValue)
        changed.tls = context
        #expect(changed == made)
        #expect(changed.hashValue == made.hashValue, "the TLS context is part of the hash once set")
        #expect(changed.hashValue != routed.hashValue)
        #expect(changed.loopAffinity == made.loopAffinity && changed.loopAffinity == routed.loopAffinity)
        #expect(Set([changed, made]).count == 1)

        // Each change moves the key away from the one it was.
        var other = changed
        other.tls = nil
        #expect(other != made)
        other.tls = context
        #expect(other == made && other.hashValue == made.hashValue)
        other.route = .forwardingProxy
        #expect(other != made && other.loopAffinity != made.loopAffinity)
        other.route = Self.tunnel(credentials)
        #expect(other == made && other.loopAffinity == made.loopAffinity)
        other.route = Self.tunnel()
        #expect(other != made, "another CONNECT credential, another connection")
        #expect(other.loopAffinity == made.loopAffinity, "but the same loop")
        var table = [made: 1]
        table[changed, default: 0] += 1
        #expect(table == [made: 2])
    }
}
