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
        for task in [session.dataTask(with: NetworkRequest(url: URL(string: "http://127.0.0.1:1/")!)) as SessionTask,
                     session.downloadTask(with: NetworkRequest(url: URL(string: "http://127.0.0.1:1/")!))] {
            let size = mallocUsableSize(Unmanaged.passUnretained(task).toOpaque())
            #expect(size <= Self.perThreadCacheLimit, "\(type(of: task)): \(size) bytes (SessionTask.swift says why this matters)")
        }
    }
}
