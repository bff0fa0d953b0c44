// swift-tools-version: 6.1
import PackageDescription

// The benchmarks: our three backends beside SQLite (through GRDB) and plain Swift, in one run.
// A package of its own so that the library products keep depending on nothing but the toolchain.
//
//   swift run -c release --package-path Benchmarks bench [--quick]
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-data-stores", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "bench",
            dependencies: [
                .product(name: "DataStores", package: "swift-data-stores"),
                .product(name: "StoreProtocol", package: "swift-data-stores"),
                .product(name: "StoreFiles", package: "swift-data-stores"),
                .product(name: "JSONStore", package: "swift-data-stores"),
                .product(name: "LogStore", package: "swift-data-stores"),
                .product(name: "MemoryStore", package: "swift-data-stores"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
    ],
    swiftLanguageModes: [.v6]
)
