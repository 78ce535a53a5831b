/// A decoder of outside bytes, driven by a fuzzer (Scripts/fuzz) or replayed over its corpus
/// (`Tests/Fuzz/Corpus/<name>/`, by the test suite and by `ferry-fuzz FILE…`). A target must
/// never crash, hang or grow without bound on any input; where two ways of decoding the same
/// bytes must agree (whole or split), it traps when they do not, so the fuzzer reports it.
public struct FuzzTarget: Sendable {
    /// The name: the corpus folder and `FERRY_FUZZ_TARGET`'s value.
    public let name: String
    /// What it decodes.
    public let summary: String
    /// Runs the decoder over `input`.
    public let run: @Sendable (UnsafeRawBufferPointer) -> Void

    /// Every target.
    public static let all: [FuzzTarget] = [
        .responseParser,
        .contentDecoding,
        .netlink,
        .setCookie,
        .authenticationChallenge,
        .resumeData,
        .redirectLocation,
        .certificate,
    ]

    /// Stops the run with `message` when `condition` fails: a finding. (`precondition` would
    /// lose its message in the release build the fuzzer runs.)
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError(message()) }
    }

    /// The target named `name`, if any.
    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
