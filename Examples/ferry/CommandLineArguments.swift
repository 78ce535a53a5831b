#if canImport(Glibc)
import Glibc
#endif

/// The process's arguments (without the program name), read from `argv` in place.
///
/// `CommandLine.arguments` keeps a copy of every argument for the life of the process; a
/// command line with ten thousand URLs (as curl scripts write) then holds each one twice.
/// Here each is made into a `String` when the parser reads it, and only what ``Options``
/// keeps stays.
struct CommandLineArguments: RandomAccessCollection {
    private let argv = CommandLine.unsafeArgv
    let startIndex = 0
    let endIndex = Int(CommandLine.argc) - 1

    subscript(index: Int) -> String {
        precondition(index >= startIndex && index < endIndex, "argument index out of range")
        guard let argument = argv[index + 1] else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: argument, count: strlen(argument)), as: UTF8.self)
    }
}
