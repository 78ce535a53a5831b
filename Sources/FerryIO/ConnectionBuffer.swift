#if canImport(Glibc)
import Glibc
#endif

/// Memory for one of a connection's buffers (its read buffer, TLS's ciphertext buffers), which
/// its event loop keeps for the next connection when the connection ends
/// (``EventLoop/takeBuffer(byteCount:)``, ``SpareBuffers``). A class, so the loop can hold it;
/// released when the last reference goes.
///
/// A buffer of ``mappingThreshold`` bytes or more is mapped from the kernel (anonymous `mmap`)
/// and given back whole (`munmap`), not taken from malloc: glibc serves a 256 KiB allocation
/// with mmap only until the first such block is freed; then it raises its mmap threshold past
/// that size (M_MMAP_THRESHOLD's dynamic adjustment) and serves later ones from the heap, where
/// every page a buffer ever touched stays resident after it is freed and the heap fragments as
/// connections come and go. In the chaos soak (`Benchmarks/soak`: connections reset, cut and
/// reopened by the thousand) peak RSS climbed 5 to 8 MiB after the first 10,000 requests that
/// way. Mapped, a buffer costs only the pages its connection touches, while it lives or waits
/// as a spare. Smaller buffers come from malloc, which serves them without a system call when
/// many connections open at once and the loop's spares run out.
package final class ConnectionBuffer {
    /// Buffers this large or larger are mapped.
    package static let mappingThreshold = 128 * 1024

    /// The memory, `byteCount` bytes, aligned to the page when mapped (to 16 bytes otherwise).
    package let bytes: UnsafeMutableRawBufferPointer
    /// False when the bytes came from malloc (released with `deallocate`).
    private let isMapped: Bool

    /// Maps `byteCount` bytes of zeroed, private memory when that is at least
    /// ``mappingThreshold``, else (or if the kernel refuses: an address-space limit) allocates
    /// them from the heap.
    package init(byteCount: Int) {
        if byteCount >= Self.mappingThreshold,
           let address = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
           address != MAP_FAILED {
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
