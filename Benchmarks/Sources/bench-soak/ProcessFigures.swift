import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// What the kernel says about this process: its open descriptors and its peak resident size.
enum ProcessFigures {
    /// The descriptors open now (the entries of /proc/self/fd, less the one reading it).
    static func openDescriptors() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 1) - 1
    }

    /// What each open descriptor is, by kind ("socket", "anon_inode:[eventpoll]", a path),
    /// inode numbers left out so that two lists can be compared.
    static func descriptorKinds() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { name -> String? in
            var target = [CChar](repeating: 0, count: 512)
            let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
            guard length > 0 else { return nil } // the directory's own descriptor, closed by now
            let text = String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // socket:[123] and pipe:[456] differ only by inode; anon_inode:[eventpoll] says what it is.
            return text.hasPrefix("socket:[") || text.hasPrefix("pipe:[") ? String(text.prefix { $0 != ":" }) : text
        }.sorted()
    }

    /// Waits (5 s at most) until no socket is open and the count of descriptors has held for
    /// 150 ms: a released session's loops close their epoll and eventfd descriptors as their
    /// last reference goes, which can be a moment after the session's invalidation.
    /// - Returns: whether they settled (false: the baseline is not one to compare against).
    static func descriptorsSettle() async -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        var last = -1
        var steady = 0
        while ContinuousClock.now < deadline, steady < 3 {
            try? await Task.sleep(for: .milliseconds(50))
            let kinds = descriptorKinds()
            steady = kinds.count == last && !kinds.contains("socket") ? steady + 1 : 0
            last = kinds.count
        }
        return steady >= 3
    }

    /// The peak resident set size so far, in KiB (VmHWM in /proc/self/status).
    static func peakResidentKiB() -> Int {
        statusField("VmHWM:")
    }

    /// The process's threads now.
    static func threads() -> Int {
        statusField("Threads:")
    }

    /// The resident set size now, in KiB (VmRSS).
    static func residentKiB() -> Int {
        statusField("VmRSS:")
    }

    /// Writes `line` to standard error (progress and usage, apart from the report on stdout).
    static func printError(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    }

    private static func statusField(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
        return Int(line.dropFirst(name.count).filter(\.isNumber)) ?? 0
    }
}
