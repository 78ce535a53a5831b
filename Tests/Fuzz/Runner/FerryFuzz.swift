import FerryFuzzTargets
#if canImport(Glibc)
import Glibc
#endif

#if FERRY_FUZZ
// Built by Scripts/fuzz with coverage instrumentation and AddressSanitizer, linked with
// libFuzzer's library (no main of its own: SwiftPM names the program's entry point itself), whose
// driver (LLVMFuzzerRunDriver, declared in CFerrySanitizers) this hands the arguments and the
// target FERRY_FUZZ_TARGET names.
import CFerrySanitizers

/// Set once, before the driver starts calling in.
nonisolated(unsafe) private var selected: FuzzTarget?

@main
enum FerryFuzz {
    static func main() {
        let name = getenv("FERRY_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = FuzzTarget.named(name) else {
            printError("ferry-fuzz: set FERRY_FUZZ_TARGET to one of: \(FuzzTarget.all.map(\.name).joined(separator: ", "))")
            exit(2)
        }
        selected = target
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            selected?.run(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        })
    }
}
#else
/// Without the fuzzer: replays files through a target, to reproduce a finding by hand.
@main
enum FerryFuzzReplay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget.named(name), arguments.count > 1 else {
            print("usage: ferry-fuzz TARGET FILE…   (targets: \(FuzzTarget.all.map(\.name).joined(separator: ", ")))")
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let file = fopen(path, "rb") else {
                printError("ferry-fuzz: cannot open \(path)")
                exit(1)
            }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = fread(&buffer, 1, buffer.count, file)
                if count <= 0 { break }
                bytes += buffer[..<count]
            }
            fclose(file)
            bytes.withUnsafeBytes { target.run($0) }
            print("ok \(path) (\(bytes.count) bytes)")
        }
    }
}
#endif

/// Writes a line to standard error.
func printError(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}
