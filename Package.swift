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
        .library(name: "MemoryStore", targets: ["MemoryStore"]),
        .library(name: "JSONStore", targets: ["JSONStore"]),
        .library(name: "LogStore", targets: ["LogStore"]),
        .library(name: "StoreConformance", targets: ["StoreConformance"]),
    ],
    targets: [
        .target(name: "StoreProtocol", swiftSettings: swiftSettings),
        .target(name: "MemoryStore", dependencies: ["StoreProtocol"], swiftSettings: swiftSettings),
        .target(name: "JSONStore", dependencies: ["StoreProtocol"], swiftSettings: swiftSettings),
        .target(name: "LogStore", dependencies: ["StoreProtocol"], swiftSettings: swiftSettings),
        .target(name: "StoreConformance", dependencies: ["StoreProtocol"], swiftSettings: swiftSettings),

        // The example: the talk's unread-trips feature on the command line.
        .executableTarget(
            name: "trips", dependencies: ["StoreProtocol", "JSONStore", "LogStore", "MemoryStore"],
            swiftSettings: swiftSettings),

        // A child process for tests that need a second process (crash and multi-process tests).
        .executableTarget(name: "StoreTestHelper", dependencies: ["StoreProtocol", "JSONStore", "LogStore", "StoreTestSupport"], swiftSettings: swiftSettings),

        .target(name: "StoreTestSupport", dependencies: ["StoreProtocol"], path: "Tests/StoreTestSupport", swiftSettings: swiftSettings),

        .testTarget(
            name: "StoreProtocolTests",
            dependencies: ["StoreProtocol", "MemoryStore", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "MemoryStoreTests",
            dependencies: ["MemoryStore", "StoreProtocol"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "JSONStoreTests",
            dependencies: ["JSONStore", "StoreProtocol", "StoreTestHelper", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LogStoreTests",
            dependencies: ["LogStore", "StoreProtocol", "StoreTestHelper", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TripsTests",
            dependencies: ["trips", "StoreProtocol", "JSONStore", "LogStore", "MemoryStore", "StoreTestHelper", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        // Deliberately broken stores that the conformance suite must fail.
        .testTarget(
            name: "ConformanceNegativeControls",
            dependencies: ["StoreConformance", "StoreProtocol", "MemoryStore"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "Conformance",
            dependencies: ["StoreConformance", "StoreProtocol", "MemoryStore", "JSONStore", "LogStore", "StoreTestSupport"],
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
