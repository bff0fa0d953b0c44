// swift-tools-version: 6.1
import PackageDescription

/// The same settings as the main package: Swift 6 language mode, existential `any` spelled out.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

// The PostgresStore library is the main package's, behind its PostgreSQL trait, so that an app can
// depend on it by URL; this package, which enables the trait, holds what only its developers need:
// the tests and their helper process, the benchmarks (with GRDB) and `trips` with the postgres scheme.
let package = Package(
    name: "PostgresStore",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // The example app with the postgres scheme: swift run --package-path Backends/PostgresStore trips --store postgres://…
        .executable(name: "trips", targets: ["trips-postgres"]),
    ],
    dependencies: [
        // Named so that the product references below do not depend on the checkout folder's name.
        .package(name: "swift-data-stores", path: "../..", traits: ["PostgreSQL"]),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // For pg-bench only: SQLite beside PostgreSQL (needs libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The main package's trips (symbolic links to Sources/trips) with StoreSchemes.swift of its own.
        .executableTarget(
            name: "trips-postgres",
            dependencies: [
                .product(name: "PostgresStore", package: "swift-data-stores"),
                .product(name: "StoreProtocol", package: "swift-data-stores"),
                .product(name: "DataStores", package: "swift-data-stores"),
                .product(name: "StoreFiles", package: "swift-data-stores"),
                .product(name: "JSONStore", package: "swift-data-stores"),
                .product(name: "LogStore", package: "swift-data-stores"),
                .product(name: "MemoryStore", package: "swift-data-stores"),
                .product(name: "StoreSync", package: "swift-data-stores"),
            ],
            swiftSettings: swiftSettings),
        // The benchmarks: PostgresStore beside plain postgres-nio and GRDB/SQLite (--quick in CI).
        .executableTarget(
            name: "pg-bench",
            dependencies: [
                .product(name: "PostgresStore", package: "swift-data-stores"),
                .product(name: "StoreProtocol", package: "swift-data-stores"),
                .product(name: "DataStores", package: "swift-data-stores"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "StoreSync", package: "swift-data-stores"),
                .product(name: "JSONStore", package: "swift-data-stores"),
            ],
            swiftSettings: swiftSettings),
        // A second process for the tests: writers and a history reader (multi-writer test),
        // a writer to kill across a server restart.
        .executableTarget(
            name: "pg-store-helper",
            dependencies: [
                .product(name: "PostgresStore", package: "swift-data-stores"),
                .product(name: "StoreProtocol", package: "swift-data-stores"),
                .product(name: "DataStores", package: "swift-data-stores"),
                .product(name: "StoreSync", package: "swift-data-stores"),
                .product(name: "JSONStore", package: "swift-data-stores"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: [
                .product(name: "PostgresStore", package: "swift-data-stores"),
                "pg-store-helper",
                "trips-postgres",
                .product(name: "StoreProtocol", package: "swift-data-stores"),
                .product(name: "DataStores", package: "swift-data-stores"),
                .product(name: "StoreConformance", package: "swift-data-stores"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "StoreSync", package: "swift-data-stores"),
                .product(name: "JSONStore", package: "swift-data-stores"),
                .product(name: "MemoryStore", package: "swift-data-stores"),
            ],
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
