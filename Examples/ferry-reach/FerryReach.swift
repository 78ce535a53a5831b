#if canImport(Glibc)
import Glibc
#endif
import Ferry

/// `ferry-reach`: prints the network's reachability, then one line per change (CLI.md).
///
/// ``ReachOptions`` reads the command line, ``StatusLine`` formats; this file only wires a
/// `NetworkReachabilityManager` to standard output.
@main
struct FerryReach {
    static func main() async {
        // A closed pipe on standard output ends the tool with a write error, not SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        exit(await run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs a command line; returns the exit code.
    static func run(_ arguments: [String]) async -> Int32 {
        let options: ReachOptions
        do throws(ReachOptions.UsageError) {
            options = try ReachOptions.parse(arguments)
        } catch {
            writeError("ferry-reach: \(error.message)\nferry-reach: try 'ferry-reach --help' for more information\n")
            return 2
        }
        if options.showHelp {
            writeOut(ReachOptions.usage)
            return 0
        }
        let manager: NetworkReachabilityManager
        switch options.target {
        case .internet:
            manager = NetworkReachabilityManager()
        case .host(let name):
            manager = NetworkReachabilityManager(domain: name)
        case .address(let text):
            do throws(ReachabilityError) {
                manager = try NetworkReachabilityManager(address: text)
            } catch {
                writeError("ferry-reach: option --address: \(error)\n")
                return 2
            }
        }
        let updates = manager.statusUpdates
        do throws(ReachabilityError) {
            try manager.startMonitoring()
        } catch {
            writeError("ferry-reach: \(error)\n")
            return 1
        }
        var known = false
        for await status in updates {
            // The first line is the first known status: "unknown" before the kernel's tables
            // are read says nothing. Later an "unknown" (monitoring failed) is a change.
            if status == .unknown && !known { continue }
            known = true
            guard writeOut(StatusLine.format(status, json: options.json) + "\n") else { return 1 }
            if options.once { return 0 }
        }
        return 0
    }

    /// Writes to standard output at once (a pipe reader sees each line as it happens).
    @discardableResult
    static func writeOut(_ text: String) -> Bool {
        write(text, to: 1)
    }

    static func writeError(_ text: String) {
        _ = write(text, to: 2)
    }

    private static func write(_ text: String, to fd: Int32) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            bytes = bytes.dropFirst(written)
        }
        return true
    }
}
