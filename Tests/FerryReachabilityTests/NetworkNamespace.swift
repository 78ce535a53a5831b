import Foundation
import Testing

/// A private network namespace made with iproute2 (`ip netns add ferry-reach-<random>`), for
/// live rtnetlink tests. Everything the tests change (`ip -n NAME …`) happens inside it; the
/// host's own interfaces and routes are never touched. Removed after each use, whatever
/// happened.
struct NetworkNamespace: Sendable {
    /// A failed `ip` command.
    struct CommandFailed: Error, CustomStringConvertible {
        var command: [String]
        var outcome: SpawnedProgram.Outcome
        var description: String { "ip \(command.joined(separator: " ")): \(outcome)" }
    }

    /// The namespace's name.
    let name: String

    /// Where `ip netns add` binds it: the path a netlink socket is opened in.
    var path: String { "/var/run/netns/\(name)" }

    /// iproute2's `ip`, where distributions put it.
    static let ipPath: String? = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Why live tests are skipped where they are.
    static let skipReason: Comment = "skipped: creating a network namespace was refused here (needs root or CAP_SYS_ADMIN, and iproute2's `ip`)"

    /// Whether namespaces can be made here: tried once per run (a probe namespace is made
    /// and removed), shared by every test that asks.
    static func isAvailable() async -> Bool {
        await probe.value
    }

    private static let probe = Task<Bool, Never> {
        guard ipPath != nil else { return false }
        do {
            let namespace = try await create()
            await namespace.delete()
            return true
        } catch {
            print("NetworkNamespace: \(error)")
            return false
        }
    }

    /// Makes a namespace, runs `body` with it and removes it, also when `body` throws.
    static func with<T: Sendable>(_ body: (NetworkNamespace) async throws -> T) async throws -> T {
        let namespace = try await create()
        do {
            let result = try await body(namespace)
            await namespace.delete()
            return result
        } catch {
            await namespace.delete()
            throw error
        }
    }

    private static func create() async throws -> NetworkNamespace {
        let name = "ferry-reach-\(UInt32.random(in: 0...UInt32.max))"
        try await run(["netns", "add", name])
        return NetworkNamespace(name: name)
    }

    /// Runs `ip -n NAME arguments…`.
    /// - Throws: ``CommandFailed`` on a non-zero exit.
    func ip(_ arguments: String...) async throws {
        try await Self.run(["-n", name] + arguments)
    }

    /// Runs `ip -n NAME -batch FILE` with `commands` (one per line): many changes at once.
    func batch(_ commands: [String]) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-reach-batch-\(UUID().uuidString)")
        try commands.joined(separator: "\n").appending("\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try await Self.run(["-n", name, "-batch", file.path])
    }

    /// Runs `ip netns exec NAME executable arguments…` to its end.
    func exec(_ executable: String, _ arguments: [String]) async throws -> SpawnedProgram.Outcome {
        try await SpawnedProgram.run(Self.ipPath ?? "ip", ["netns", "exec", name, executable] + arguments)
    }

    /// Starts `ip netns exec NAME executable arguments…` and returns at once.
    func start(_ executable: String, _ arguments: [String]) throws -> SpawnedProgram {
        try SpawnedProgram(Self.ipPath ?? "ip", ["netns", "exec", name, executable] + arguments)
    }

    /// Removes the namespace (its interfaces and routes go with it).
    func delete() async {
        _ = try? await Self.run(["netns", "del", name])
    }

    private static func run(_ arguments: [String]) async throws {
        let outcome = try await SpawnedProgram.run(ipPath ?? "ip", arguments)
        guard outcome.status == 0 else { throw CommandFailed(command: arguments, outcome: outcome) }
    }
}
