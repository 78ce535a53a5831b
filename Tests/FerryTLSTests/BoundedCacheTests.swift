import Testing
@testable import FerryTLS

/// The bounded `host:port` store behind the session and approval caches.
@Suite struct BoundedCacheTests {
    @Test func theOldestStoredLeavesFirstWhenFull() {
        var cache = BoundedCache<Int>(capacity: 2)
        #expect(cache.store(1, for: "a:443").isEmpty)
        #expect(cache.store(2, for: "b:443").isEmpty)
        #expect(cache.store(3, for: "c:443") == [1])
        #expect(cache["a:443"] == nil)
        #expect(cache["b:443"] == 2 && cache["c:443"] == 3)
        #expect(cache.count == 2)
    }

    @Test func storingAgainReplacesAndMakesTheKeyNewest() {
        var cache = BoundedCache<Int>(capacity: 2)
        _ = cache.store(1, for: "a:443")
        _ = cache.store(2, for: "b:443")
        #expect(cache.store(10, for: "a:443") == [1])
        // "b" is now the oldest, so it leaves first.
        #expect(cache.store(3, for: "c:443") == [2])
        #expect(cache["a:443"] == 10)
        #expect(Set(cache.allValues) == [10, 3])
    }

    @Test func removeForgetsAKeyAndItsPlace() {
        var cache = BoundedCache<Int>(capacity: 2)
        _ = cache.store(1, for: "a:443")
        _ = cache.store(2, for: "b:443")
        #expect(cache.remove("a:443") == 1)
        #expect(cache.remove("a:443") == nil)
        #expect(cache.store(3, for: "c:443").isEmpty, "the removed key no longer takes a place")
        #expect(cache.count == 2)
    }
}
