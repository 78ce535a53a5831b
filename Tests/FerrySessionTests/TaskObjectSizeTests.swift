// The size of a task object is a performance figure: glibc hands out blocks of up to 1,032
// usable bytes from a per-thread cache, larger ones through malloc's slow path, once per task.
import Foundation
import Testing

@testable import FerrySession

@_silgen_name("malloc_usable_size") private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer) -> Int

@Suite("Task object size")
struct TaskObjectSizeTests {
    /// glibc's tcache serves blocks of at most this many usable bytes (64 bins of 16 bytes).
    static let perThreadCacheLimit = 1032

    @Test func aTaskFitsMallocsPerThreadCache() {
        let session = Session(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let request = NetworkRequest(url: URL(string: "http://127.0.0.1:1/")!)
        let makers: [(String, () -> SessionTask)] = [
            ("DataTask", { session.dataTask(with: request) }),
            ("DownloadTask", { session.downloadTask(with: request) }),
        ]
        for (name, make) in makers {
            // malloc may hand out a free block a little larger than asked for (when the rest
            // would be too small to split off): the smallest of several live blocks is the
            // size the object asks for.
            let tasks = (0..<16).map { _ in make() }
            let size = tasks.map { mallocUsableSize(Unmanaged.passUnretained($0).toOpaque()) }.min() ?? 0
            #expect(size <= Self.perThreadCacheLimit, "\(name): \(size) bytes (SessionTask.swift says why this matters)")
        }
    }
}
