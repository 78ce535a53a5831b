#if canImport(Glibc)
import Glibc
#endif
import Ferry
import Foundation

/// `ferry-pin`: the fingerprints and SPKI pins of certificates, for writing pinning
/// configurations (Ferry's `SecurityPolicy`, `ferry --pinnedpubkey`, curl's `--pinnedpubkey`).
///
/// The certificates come from files, or with `--connect HOST:PORT` from a live server's chain,
/// fetched through Ferry's own TLS by a ``Session`` whose trust evaluator records the chain
/// and refuses the connection (``ChainRecorder``): no HTTP byte is sent.
///
/// Built on Ferry's public API only (`Certificate`, `PublicKey.pin`, `Session`). Every
/// failure prints one line on standard error, `ferry-pin: …`, and exits 2 (usage), 23
/// (standard output could not be written), 77 (unreadable or invalid certificate file;
/// nothing is printed on standard output then, even for the files that were fine), or for
/// `--connect` curl's 6, 7, 28 or 35 when no chain arrived.
@main
struct FerryPin {
    static let version = "0.1"

    static func main() async {
        // A closed pipe on standard output must be exit 23, not a silent death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let options = try? PinArguments.parse(arguments), let authority = options.connect,
           !options.showHelp, !options.showVersion {
            exit(await connect(authority, options))
        }
        exit(run(arguments))
    }

    /// `--connect`: prints the live server's chain and the default evaluation's verdict.
    /// - Returns: the exit status.
    static func connect(
        _ authority: String, _ options: PinArguments,
        output: (String) -> Bool = { writeAll(STDOUT_FILENO, $0) },
        writeError: (String) -> Void = { _ = writeAll(STDERR_FILENO, $0) }
    ) async -> Int32 {
        do throws(PinFailure) {
            let server = try LiveServer(authority, serverName: options.serverName)
            var trustStore = TrustStore.system
            if let path = options.caCertificateFile {
                do {
                    trustStore = try TrustStore(contentsOf: URL(fileURLWithPath: path))
                } catch {
                    throw .badFile("--cacert: \(error)")
                }
            }
            let trust = try await server.fetchTrust(trustStore: trustStore)
            let entries = PinnedCertificate.entries(trust.certificates, source: server.label)
            let verdict = PinReport.Verdict(trust.defaultEvaluationFailure)
            let text = options.json ? PinReport.json(entries, verify: verdict) : PinReport.text(entries, verify: verdict)
            guard output(text) else { throw .writeFailed }
            return 0
        } catch {
            writeError(error.line + "\n")
            return error.exitCode
        }
    }

    /// Runs a whole command line and returns the exit status.
    /// - Parameters:
    ///   - arguments: the arguments without the program name.
    ///   - output: writes to standard output; false when the write failed.
    ///   - writeError: writes one line (with its newline) to standard error.
    ///   - standardInput: reads all of standard input, for the file `-`.
    static func run(
        _ arguments: [String],
        output: (String) -> Bool = { writeAll(STDOUT_FILENO, $0) },
        writeError: (String) -> Void = { _ = writeAll(STDERR_FILENO, $0) },
        standardInput: () -> [UInt8] = { Array(FileHandle.standardInput.readDataToEndOfFile()) }
    ) -> Int32 {
        do throws(PinFailure) {
            let options = try PinArguments.parse(arguments)
            if options.showHelp || options.showVersion {
                guard output(options.showHelp ? PinArguments.help : "ferry-pin \(version) (Ferry)\n") else {
                    throw .writeFailed
                }
                return 0
            }
            let entries = try load(options.files, standardInput: standardInput, writeError: writeError)
            guard output(options.json ? PinReport.json(entries) : PinReport.text(entries)) else { throw .writeFailed }
            return 0
        } catch {
            writeError(error.line + "\n")
            return error.exitCode
        }
    }

    /// Loads every file, reporting each bad one on standard error; throws the last failure
    /// so that nothing is printed unless every file was good.
    private static func load(
        _ files: [String], standardInput: () -> [UInt8], writeError: (String) -> Void
    ) throws(PinFailure) -> [PinnedCertificate] {
        var entries: [PinnedCertificate] = []
        var failure: PinFailure?
        for file in files {
            do throws(PinFailure) {
                entries += try PinnedCertificate.load(file, standardInput: standardInput)
            } catch {
                if let earlier = failure { writeError(earlier.line + "\n") }
                failure = error
            }
        }
        if let failure { throw failure }
        return entries
    }

    /// Writes every byte of `text` to `fd`, retrying short writes and EINTR.
    private static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
