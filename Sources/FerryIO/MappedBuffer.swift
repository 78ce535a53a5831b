#if canImport(Glibc)
import Glibc
#endif

/// A large buffer mapped from the kernel (anonymous `mmap`) instead of taken from malloc, and
/// given back whole (`munmap`) when released: a connection's read buffer.
///
/// glibc serves a 256 KiB allocation with mmap only until the first such block is freed; then
/// it raises its mmap threshold past that size (M_MMAP_THRESHOLD's dynamic adjustment) and
/// serves later ones from the heap, where every page a buffer ever touched stays resident after
/// it is freed and the heap fragments as connections come and go. In the chaos soak
/// (`Benchmarks/soak`: connections reset, cut and reopened by the thousand) peak RSS climbed 5 to
/// 8 MiB after the first 10,000 requests that way. Mapped, a buffer costs only the pages its
/// connection touches, while it lives or waits as its loop's spare. The two system calls and first-touch
/// faults are paid only when the loop has no spare (``EventLoop/takeBuffer(byteCount:)``).
///
/// A class, so an event loop can keep spares of them for its next connections
/// (``EventLoop/takeBuffer(byteCount:)``): released when the last reference goes.
package final class MappedBuffer {
    /// The memory, `byteCount` bytes, aligned to the page when mapped (to 16 bytes otherwise).
    package let bytes: UnsafeMutableRawBufferPointer
    /// False when mmap failed and malloc stood in (released with `deallocate`).
    private let isMapped: Bool

    /// Maps `byteCount` bytes of zeroed, private memory; if the kernel refuses (an address
    /// space limit), allocates them from the heap instead.
    package init(byteCount: Int) {
        let address = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if let address, address != MAP_FAILED {
            bytes = UnsafeMutableRawBufferPointer(start: address, count: byteCount)
            isMapped = true
        } else {
            bytes = .allocate(byteCount: byteCount, alignment: 16)
            isMapped = false
        }
    }

    deinit {
        if isMapped {
            _ = munmap(bytes.baseAddress, bytes.count)
        } else {
            bytes.deallocate()
        }
    }
}
