// swift-tools-version: 6.0
import PackageDescription

/// Swift 6 language mode and warnings-as-errors-clean code for every target.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-data-stores",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "StoreProtocol", targets: ["StoreProtocol"]),
        .library(name: "StoreBuildingBlocks", targets: ["StoreBuildingBlocks"]),
        .library(name: "StoreFiles", targets: ["StoreFiles"]),
        .library(name: "MemoryStore", targets: ["MemoryStore"]),
        .library(name: "JSONStore", targets: ["JSONStore"]),
        .library(name: "LogStore", targets: ["LogStore"]),
        .library(name: "StoreConformance", targets: ["StoreConformance"]),
    ],
    targets: [
        // The contract: what apps use and what a backend implements. Nothing else.
        .target(name: "StoreProtocol", swiftSettings: swiftSettings),
        // For backend authors: rows in memory, history in memory, the exact JSON of snapshot values,
        // the code stores built on them share.
        .target(name: "StoreBuildingBlocks", dependencies: ["StoreProtocol"], swiftSettings: swiftSettings),
        // For stores that keep files (and history consumers kept in one): durable POSIX file
        // I/O, locks, checksums; fault injection in debug builds only.
        .target(name: "StoreFiles", dependencies: ["StoreProtocol"], swiftSettings: swiftSettings),
        .target(name: "MemoryStore", dependencies: ["StoreProtocol", "StoreBuildingBlocks"], swiftSettings: swiftSettings),
        .target(name: "JSONStore", dependencies: ["StoreProtocol", "StoreBuildingBlocks", "StoreFiles"], swiftSettings: swiftSettings),
        .target(name: "LogStore", dependencies: ["StoreProtocol", "StoreBuildingBlocks", "StoreFiles"], swiftSettings: swiftSettings),
        .target(name: "StoreConformance", dependencies: ["StoreProtocol"], swiftSettings: swiftSettings),

        // The example: the talk's unread-trips feature on the command line.
        .executableTarget(
            name: "trips", dependencies: ["StoreProtocol", "StoreFiles", "JSONStore", "LogStore", "MemoryStore"],
            swiftSettings: swiftSettings),

        // A child process for tests that need a second process (crash and multi-process tests).
        .executableTarget(name: "StoreTestHelper", dependencies: ["StoreProtocol", "JSONStore", "LogStore", "StoreTestSupport"], swiftSettings: swiftSettings),

        // The harnesses the tests and StoreTestHelper share: power-loss simulator, damaged files,
        // stress runs, child processes. Under Sources/ because an executable uses it.
        .target(name: "StoreTestSupport", dependencies: ["StoreProtocol", "StoreFiles"], swiftSettings: swiftSettings),

        .testTarget(
            name: "StoreProtocolTests",
            dependencies: ["StoreProtocol", "StoreBuildingBlocks", "MemoryStore", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "StoreBuildingBlocksTests",
            dependencies: ["StoreBuildingBlocks", "StoreProtocol", "StoreFiles", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "StoreFilesTests",
            dependencies: ["StoreFiles", "StoreProtocol", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "MemoryStoreTests",
            dependencies: ["MemoryStore", "StoreProtocol", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "JSONStoreTests",
            dependencies: ["JSONStore", "StoreProtocol", "StoreBuildingBlocks", "StoreFiles", "StoreTestHelper", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LogStoreTests",
            dependencies: ["LogStore", "StoreProtocol", "StoreBuildingBlocks", "StoreFiles", "StoreTestHelper", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        // ModelContainer over several stores: the store registry and locations, history across
        // stores, history updates (one from a StoreTestHelper process) and history consumers.
        .testTarget(
            name: "ContainerTests",
            dependencies: ["StoreProtocol", "StoreFiles", "JSONStore", "LogStore", "MemoryStore", "StoreTestHelper", "StoreTestSupport",
                           "StoreConformance"],
            swiftSettings: swiftSettings),
        // The example's command, run as processes.
        .testTarget(
            name: "TripsTests",
            dependencies: ["trips", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        // Deliberately broken stores that the conformance suite must fail.
        .testTarget(
            name: "ConformanceNegativeControls",
            dependencies: ["StoreConformance", "StoreProtocol", "StoreBuildingBlocks", "MemoryStore", "JSONStore"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["StoreConformance", "StoreProtocol", "MemoryStore", "JSONStore", "LogStore", "StoreTestSupport"],
            path: "Tests/Conformance",
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
