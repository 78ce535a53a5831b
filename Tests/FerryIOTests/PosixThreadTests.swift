import FerryBase
import Glibc
import Synchronization
import Testing

@testable import FerryIO

@Suite("PosixThread")
struct PosixThreadTests {
    @Test("a started thread carries its name, cut to the kernel's 15 bytes")
    func names() throws {
        for (asked, shown) in [("ferry-test", "ferry-test"), ("ferry-a-long-thread-name", "ferry-a-long-th")] {
            let seen = Locked<String?>(nil)
            let thread = try PosixThread.start(name: asked) {
                let comm = "/proc/thread-self/comm"
                guard let file = fopen(comm, "r") else { return }
                defer { fclose(file) }
                var line = [CChar](repeating: 0, count: 64)
                guard fgets(&line, Int32(line.count), file) != nil else { return }
                let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                seen.withLock { $0 = text.trimmingSuffix("\n") }
            }
            thread.join()
            #expect(seen.withLock { $0 } == shown)
        }
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
