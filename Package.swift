// swift-tools-version:6.1
import PackageDescription

// Ferry: an AFNetworking-style HTTP client framework for Swift on Linux, on its own
// HTTP/1.1 engine over POSIX sockets and OpenSSL. ARCHITECTURE.md explains the modules.

let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let nioTestServer: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOTLS", package: "swift-nio"),
    .product(name: "NIOSSL", package: "swift-nio-ssl"),
]

let package = Package(
    name: "Ferry",
    products: [
        .library(name: "Ferry", targets: ["Ferry"]),
        .executable(name: "ferry", targets: ["ferry"]),
        .executable(name: "ferry-pin", targets: ["ferry-pin"]),
        .executable(name: "ferry-reach", targets: ["ferry-reach"]),
        .executable(name: "ferry-api", targets: ["ferry-api"]),
    ],
    traits: [
        // The APIs that need the full Foundation (NotificationCenter, Progress, property-list and
        // XML parsing). Everything else imports FoundationEssentials only, so a package that
        // turns the traits off (`traits: []`) links no Foundation: a static binary about 50 MB
        // smaller, using about 4 MiB less memory (ARCHITECTURE.md, "Foundation").
        .trait(
            name: "ReachabilityNotifications",
            description: "NetworkReachabilityManager posts statusDidChangeNotification through Foundation's NotificationCenter."
        ),
        // SessionTask.foundationProgress, URLSessionTask's `progress`: a Foundation.Progress.
        .trait(
            name: "FoundationProgress",
            description: "SessionTask.foundationProgress, a Foundation.Progress kept up to date as the task's bytes move."
        ),
        // SessionManager's NotificationCenter notifications (AFNetworking's task did resume /
        // suspend / complete, session did invalidate, download did move file).
        .trait(
            name: "ManagerNotifications",
            description: "SessionManager posts AFNetworking's task, session and download notifications through Foundation's NotificationCenter."
        ),
        // The response serializers AFNetworking builds on PropertyListSerialization and
        // NSXMLParser; the managers' Data, JSONValue and Decodable paths need neither.
        .trait(
            name: "FoundationSerializers",
            description: "PropertyListResponseSerializer and the XML parser and XML document response serializers; links the full Foundation and FoundationXML."
        ),
        .default(enabledTraits: ["ReachabilityNotifications", "FoundationProgress", "ManagerNotifications", "FoundationSerializers"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Test-only: an independent HTTP server for integration tests.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Test-only: a TLS server that is not our code, for the end-to-end TLS and pinning tests.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        // MARK: - System libraries and C shims
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Debian's libpsl: the Public Suffix List the cookie jar checks Domain attributes
        // against (curl's choice; its data follows Debian's `publicsuffix` package).
        .systemLibrary(
            name: "CPSL",
            pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev"])]
        ),
        .target(name: "CFerryShims", dependencies: ["COpenSSL", "CZlib"]),

        // MARK: - Library modules (arrows point down only)
        // The vocabulary the modules below the engine share: ErrorKind, HostName. Pure Swift.
        // The sanitizer runtimes' entry points (ThreadSanitizer's annotations for Locked,
        // libFuzzer's driver for ferry-fuzz): declarations only.
        .target(name: "CFerrySanitizers"),
        .target(name: "FerryBase", dependencies: ["CFerrySanitizers"]),
        .target(name: "FerryIO", dependencies: ["FerryBase", "CFerryShims", logging]),
        .target(name: "FerryWire", dependencies: ["FerryBase", httpTypes]),
        .target(name: "FerryTLS", dependencies: ["FerryBase", "COpenSSL", "CFerryShims"]),
        .target(
            name: "FerryEngine",
            dependencies: ["FerryIO", "FerryWire", "FerryTLS", "CFerryShims", "CZlib", httpTypes]
        ),
        .target(
            name: "FerrySession",
            dependencies: ["FerryEngine", "FerryIO", "FerryWire", "FerryTLS", "CPSL", httpTypes],
            // As in FerryReachability: the one file that imports Foundation (FoundationProgress)
            // must not change which overloads the other files call.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        .target(
            name: "FerryReachability",
            dependencies: ["FerryIO", "CFerryShims", logging],
            // Foundation's String extensions stay in the one file that imports Foundation, so
            // turning the trait off never changes which overload the other files call.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        .target(
            name: "Ferry",
            dependencies: ["FerrySession", "FerryTLS", "FerryReachability", httpTypes],
            // The trait-gated files import Foundation (and FoundationXML); their String and Data
            // extensions must not reach the other files, or turning a trait off would change
            // which overloads those call.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),

        // MARK: - Examples (public API only)
        .executableTarget(name: "ferry", dependencies: ["Ferry"], path: "Examples/ferry"),
        .executableTarget(name: "ferry-pin", dependencies: ["Ferry"], path: "Examples/ferry-pin"),
        .executableTarget(name: "ferry-reach", dependencies: ["Ferry"], path: "Examples/ferry-reach"),
        .executableTarget(name: "ferry-api", dependencies: ["Ferry"], path: "Examples/ferry-api"),

        // MARK: - Tests
        .target(
            name: "TestSupport",
            dependencies: nioTestServer + ["FerryBase", "CZlib", "COpenSSL"],
            path: "Tests/TestSupport",
            // TLS test certificates (Scripts/make-test-certificates), read by path, not compiled.
            exclude: ["Certificates"]
        ),
        // The test suite's echo server as a program, for trying the examples by hand.
        .executableTarget(name: "ferry-echo-server", dependencies: ["Ferry", "TestSupport"], path: "Tests/EchoServer"),
        .testTarget(name: "FerryBaseTests", dependencies: ["FerryBase"]),
        .testTarget(name: "FerryWireTests", dependencies: ["FerryWire", httpTypes], resources: [.copy("Fixtures")]),
        .testTarget(name: "FerryIOTests", dependencies: ["FerryIO", "CFerryShims"]),
        .testTarget(name: "FerryEngineTests", dependencies: ["FerryEngine", "FerryIO", "FerryWire", "TestSupport", httpTypes]),
        .testTarget(name: "FerrySessionTests", dependencies: ["FerrySession", "Ferry", "FerryTLS", "TestSupport", httpTypes]),
        .testTarget(name: "FerryCLITests", dependencies: ["ferry", "TestSupport"]),
        .testTarget(name: "FerryPinTests", dependencies: ["ferry-pin", "TestSupport"]),
        .testTarget(name: "FerryTLSTests", dependencies: ["FerryTLS", "COpenSSL", "CFerryShims", "TestSupport"]),
        .testTarget(
            name: "FerryTests",
            dependencies: [
                "Ferry", "FerrySession", "FerryTLS", "FerryEngine", "FerryIO", "FerryWire", "FerryReachability", "TestSupport", "ferry-api",
            ]
        ),
        .testTarget(
            name: "FerryReachabilityTests",
            dependencies: ["FerryReachability", "FerryIO", "TestSupport", "ferry-reach"]
        ),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),

        // MARK: - Fuzzing (issue 20): the targets, replayed over their corpora by the tests, and
        // run by libFuzzer from Scripts/fuzz (ferry-fuzz built with -sanitize=fuzzer).
        .target(
            name: "FerryFuzzTargets",
            dependencies: ["FerryWire", "FerryEngine", "FerrySession", "FerryReachability", "FerryTLS", httpTypes],
            path: "Tests/Fuzz/Targets"
        ),
        .executableTarget(name: "ferry-fuzz", dependencies: ["FerryFuzzTargets", "CFerrySanitizers"], path: "Tests/Fuzz/Runner"),
        .testTarget(name: "FerryFuzzTests", dependencies: ["FerryFuzzTargets"], path: "Tests/Fuzz/Tests"),
    ],
    swiftLanguageModes: [.v6]
)
