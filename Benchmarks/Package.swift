// swift-tools-version:6.1
import PackageDescription

// Ferry's benchmark (issue 5): its own package, so users of Ferry never fetch
// AsyncHTTPClient or anything else the comparison needs. `Benchmarks/run` builds it in release
// mode and drives it; Benchmarks/README.md explains the workloads and the figures.

let package = Package(
    name: "FerryBenchmarks",
    dependencies: [
        // Without the default ReachabilityNotifications trait: no workload watches reachability,
        // and without NotificationCenter Ferry links no Foundation (FoundationEssentials only),
        // as an app that needs no notification would build it. Benchmarks/README.md gives the
        // difference the trait makes.
        .package(name: "Ferry", path: "..", traits: []),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        // Already in AsyncHTTPClient's graph; named here because bench-ahc imports them.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        // Shared by every client and the driver: the command-line contract between them.
        .target(name: "BenchSupport"),
        // One executable per client, so each process carries only its own client's code.
        .executableTarget(
            name: "bench-ferry",
            dependencies: ["BenchSupport", .product(name: "Ferry", package: "Ferry")]
        ),
        .executableTarget(
            name: "bench-ahc",
            dependencies: [
                "BenchSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                // JSONDecoder.decode(_:from: ByteBuffer), for W8's documents.
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // unshare(2), which Swift's Glibc module leaves out (it needs _GNU_SOURCE), and setvbuf.
        .target(name: "CBenchShims"),
        .executableTarget(name: "bench-urlsession", dependencies: ["BenchSupport", "CBenchShims"]),
        // Runs the clients (and curl) as child processes and measures them with wait4.
        .executableTarget(name: "bench-driver", dependencies: ["BenchSupport", "CBenchShims"]),
        // The floor: a minimal blocking C client on the system's OpenSSL, with full verification,
        // speaking the same contract as the Swift clients (what Ferry costs above it is Ferry's).
        .executableTarget(name: "bench-c", linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        // A C launcher between the driver and each client, so a client's peak RSS is its own.
        .executableTarget(name: "bench-launch"),
        // The two local C servers' accept loop and send (bench-sink, bench-chaos).
        .target(name: "CBenchServer"),
        // W9's upload server on 127.0.0.1: reads every byte of each multipart POST, checks the
        // form, answers with the byte counts, and keeps counters the driver reads.
        .executableTarget(name: "bench-sink", dependencies: ["CBenchServer"]),
        // Issue 20's chaos soak (Benchmarks/soak): a server that injects faults on request, and
        // a client that runs a million requests at it through HTTPSessionManager.
        .executableTarget(name: "bench-chaos", dependencies: ["CBenchServer"]),
        .executableTarget(
            name: "bench-soak",
            dependencies: [.product(name: "Ferry", package: "Ferry")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
