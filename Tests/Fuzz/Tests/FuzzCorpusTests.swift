import FerryFuzzTargets
import Foundation
import Testing

/// Every fuzz target over every file of its committed corpus (`Tests/Fuzz/Corpus/<target>/`):
/// the seeds, and each finding kept as a regression input. A target traps on a finding, so a
/// passing run is the proof that none came back.
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus")

    @Test("every target has a seed corpus", arguments: FuzzTarget.all.map(\.name))
    func hasSeeds(target: String) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.appendingPathComponent(target).path)
        #expect(files.count >= 3, "\(target): \(files.count) seeds")
    }

    @Test("each corpus file runs through its target", arguments: FuzzTarget.all.map(\.name))
    func replay(target name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let folder = Self.corpus.appendingPathComponent(name)
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(file)))
            bytes.withUnsafeBytes { target.run($0) }
        }
    }
}
