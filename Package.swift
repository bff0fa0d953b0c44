// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription
import Foundation

// MARK: - SwiftSyntax for the model macros

/// Where the macro implementation (`DataStoresMacros`) gets SwiftSyntax from.
///
/// By default, from the modules the toolchain ships beside the compiler
/// (`<toolchain>/usr/lib/swift/host`), so that the package depends on nothing but the toolchain
/// and a fresh clone downloads nothing. Where that folder is missing (a toolchain without it,
/// SwiftPM before 6.2, which refuses `unsafeFlags` in a dependency) or
/// `DATASTORES_SWIFT_SYNTAX=package` is set, from the swift-syntax package in the version that
/// matches the compiler. SwiftPM caches manifest evaluations: change the mode on a clean build.
enum SwiftSyntaxSource {
    case toolchain(host: String)
    case package
}

/// The toolchain's `usr/lib/swift/host`, when it holds SwiftSyntax's libraries and modules.
///
/// Found without any environment: the manifest runs in a process that has the toolchain's
/// `usr/lib/swift/pm/ManifestAPI/libPackageDescription.so` mapped (`/proc/self/maps`);
/// otherwise from `swiftc` on `PATH`, symbolic links resolved (`<root>/usr/bin/swiftc`).
func toolchainSwiftSyntaxHost() -> String? {
    var roots: [String] = []
    if let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) {
        let marker = "/usr/lib/swift/pm/ManifestAPI/"
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/"), let end = line.range(of: marker) else { continue }
            roots.append(String(line[slash..<end.lowerBound]))
            break
        }
    }
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else { continue }
        // <root>/usr/bin/swiftc -> <root>
        roots.append(candidate.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path)
        break
    }
    for root in roots {
        let host = root + "/usr/lib/swift/host"
        if FileManager.default.fileExists(atPath: host + "/libSwiftSyntax.so"),
           FileManager.default.fileExists(atPath: host + "/SwiftSyntax.swiftmodule") {
            return host
        }
    }
    return nil
}

#if compiler(>=6.2)
let swiftSyntaxSource: SwiftSyntaxSource =
    ProcessInfo.processInfo.environment["DATASTORES_SWIFT_SYNTAX"] == "package"
    ? .package : toolchainSwiftSyntaxHost().map { .toolchain(host: $0) } ?? .package
#else
let swiftSyntaxSource = SwiftSyntaxSource.package
#endif

/// The swift-syntax release that matches the compiler building this package.
#if compiler(>=6.3)
let swiftSyntaxVersions: Range<Version> = "603.0.0"..<"604.0.0"
#elseif compiler(>=6.2)
let swiftSyntaxVersions: Range<Version> = "602.0.0"..<"603.0.0"
#elseif compiler(>=6.1)
let swiftSyntaxVersions: Range<Version> = "601.0.0"..<"602.0.0"
#else
let swiftSyntaxVersions: Range<Version> = "600.0.0"..<"601.0.0"
#endif

/// The toolchain's SwiftSyntax libraries the macro implementation and its tests link.
let hostSwiftSyntaxLibraries = [
    "SwiftSyntax", "SwiftSyntaxMacros", "SwiftSyntaxMacroExpansion", "SwiftCompilerPluginMessageHandling",
    "SwiftDiagnostics", "SwiftSyntaxBuilder", "SwiftBasicFormat", "SwiftParser", "SwiftOperators",
    "SwiftParserDiagnostics",
]

/// What a target that imports SwiftSyntax needs: the package's products, or the flags that find
/// the toolchain's modules and libraries (and an rpath, so the plugin finds them when it runs).
func swiftSyntax(_ products: [String]) -> (dependencies: [Target.Dependency], swift: [SwiftSetting], linker: [LinkerSetting]) {
    switch swiftSyntaxSource {
    case .package:
        return (products.map { .product(name: $0, package: "swift-syntax") }, [], [])
    case .toolchain(let host):
        let libraries: [String] = hostSwiftSyntaxLibraries.map { "-l" + $0 }
        let linkerFlags: [String] = ["-L", host] + libraries + ["-Xlinker", "-rpath", "-Xlinker", host]
        return ([], [.unsafeFlags(["-I", host])], [.unsafeFlags(linkerFlags)])
    }
}

/// Swift 6 language mode and warnings-as-errors-clean code for every target.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let macroKitSyntax = swiftSyntax(["SwiftSyntax", "SwiftSyntaxMacros", "SwiftDiagnostics", "SwiftSyntaxBuilder"])
let macroSyntax = swiftSyntax(["SwiftSyntaxMacros", "SwiftCompilerPlugin"])
let macroTestSyntax = swiftSyntax(["SwiftSyntax", "SwiftSyntaxMacros", "SwiftSyntaxMacroExpansion", "SwiftParser", "SwiftDiagnostics"])
let macroSwiftSettings: [SwiftSetting] = swiftSettings + macroSyntax.swift
// The macro types live in a library that the plugin and the expansion tests share: a test target
// that depends on a `.macro` target is built for the host, and would take the whole test product
// (and its executables) with it.
let macroKitTarget = Target.target(
    name: "DataStoresMacroKit", dependencies: macroKitSyntax.dependencies,
    swiftSettings: macroSwiftSettings, linkerSettings: macroKitSyntax.linker)
let macroTarget = Target.macro(
    name: "DataStoresMacros", dependencies: ["DataStoresMacroKit"] + macroSyntax.dependencies,
    swiftSettings: macroSwiftSettings, linkerSettings: macroSyntax.linker)
let macroTestDependencies: [Target.Dependency] = ["DataStoresMacroKit"] + macroTestSyntax.dependencies
let macroTestSwiftSettings: [SwiftSetting] = swiftSettings + macroTestSyntax.swift
let macroTestTarget = Target.testTarget(
    name: "DataStoresMacrosTests", dependencies: macroTestDependencies,
    swiftSettings: macroTestSwiftSettings, linkerSettings: macroTestSyntax.linker)

// MARK: - The package

let package = Package(
    name: "swift-data-stores",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // What a port imports in place of `import SwiftData`: StoreProtocol and the model macros.
        .library(name: "DataStores", targets: ["DataStores"]),
        .library(name: "StoreProtocol", targets: ["StoreProtocol"]),
        .library(name: "StoreBuildingBlocks", targets: ["StoreBuildingBlocks"]),
        .library(name: "StoreFiles", targets: ["StoreFiles"]),
        .library(name: "MemoryStore", targets: ["MemoryStore"]),
        .library(name: "JSONStore", targets: ["JSONStore"]),
        .library(name: "LogStore", targets: ["LogStore"]),
        .library(name: "StoreConformance", targets: ["StoreConformance"]),
        .library(name: "StoreSync", targets: ["StoreSync"]),
        // The PostgreSQL backend, with the PostgreSQL trait: an empty module without it.
        .library(name: "PostgresStore", targets: ["PostgresStore"]),
    ],
    // Off by default, so that a package that does not enable it resolves, fetches and builds no
    // PostgreSQL package: SwiftPM leaves out a dependency that only a disabled trait's target
    // dependency uses (Tools/docs/check-postgres-by-url.sh checks it on a package outside).
    traits: [
        .trait(name: "PostgreSQL", description: "The PostgresStore library: a PostgreSQL backend on postgres-nio."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The contract: what apps use and what a backend implements. Nothing else.
        .target(name: "StoreProtocol", swiftSettings: swiftSettings),
        // The model macros' implementation: a compiler plugin, on the toolchain's SwiftSyntax or
        // the swift-syntax package (see `swiftSyntaxSource` above).
        macroKitTarget,
        macroTarget,
        // The umbrella module: `@_exported import StoreProtocol`, the macro declarations, and
        // ModelConfiguration, which picks the JSON or memory store.
        .target(name: "DataStores", dependencies: ["StoreProtocol", "DataStoresMacros", "JSONStore", "MemoryStore"], swiftSettings: swiftSettings),
        // For backend authors: rows in memory, history in memory, the exact JSON of snapshot values,
        // the code stores built on them share.
        .target(name: "StoreBuildingBlocks", dependencies: ["StoreProtocol"], swiftSettings: swiftSettings),
        // For stores that keep files (and history consumers kept in one): durable POSIX file
        // I/O, locks, checksums; fault injection in debug builds only.
        .target(name: "StoreFiles", dependencies: ["StoreProtocol"], swiftSettings: swiftSettings),
        .target(name: "MemoryStore", dependencies: ["StoreProtocol", "StoreBuildingBlocks"], swiftSettings: swiftSettings),
        .target(name: "JSONStore", dependencies: ["StoreProtocol", "StoreBuildingBlocks", "StoreFiles"], swiftSettings: swiftSettings),
        .target(name: "LogStore", dependencies: ["StoreProtocol", "StoreBuildingBlocks", "StoreFiles"], swiftSettings: swiftSettings),
        .target(name: "StoreConformance", dependencies: ["DataStores", "StoreProtocol"], swiftSettings: swiftSettings),
        // Sync through history: a replicator between a local container and a remote one.
        .target(name: "StoreSync", dependencies: ["DataStores", "StoreProtocol"], swiftSettings: swiftSettings),
        // PostgresStore's sources stay in Backends/PostgresStore, the package of its tests, helper,
        // benchmarks and `trips` with the postgres scheme, which depends on this one with the trait.
        // Each source file is inside `#if PostgreSQL`: a package's `swift build` builds every
        // target, this one too, and without the trait postgres-nio is not there to import.
        .target(
            name: "PostgresStore",
            dependencies: [
                "StoreProtocol", "StoreBuildingBlocks",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Backends/PostgresStore/Sources/PostgresStore",
            swiftSettings: swiftSettings),

        // The example: the talk's unread-trips feature on the command line.
        .executableTarget(
            name: "trips", dependencies: ["DataStores", "StoreProtocol", "StoreFiles", "JSONStore", "LogStore", "MemoryStore", "StoreSync"],
            swiftSettings: swiftSettings),

        // A child process for tests that need a second process (crash and multi-process tests).
        .executableTarget(name: "StoreTestHelper", dependencies: ["DataStores", "StoreProtocol", "JSONStore", "LogStore", "StoreSync", "StoreTestSupport"], swiftSettings: swiftSettings),

        // The harnesses the tests and StoreTestHelper share: power-loss simulator, damaged files,
        // stress runs, child processes. Under Sources/ because an executable uses it.
        .target(name: "StoreTestSupport", dependencies: ["DataStores", "StoreProtocol", "StoreFiles"], swiftSettings: swiftSettings),

        // The macros' expansions, in process (the macro types called directly, compared as text).
        macroTestTarget,
        // The macros as a user's compiler runs them: each diagnostic from a child swiftc, and a
        // model in a module whose default isolation is the main actor.
        .testTarget(name: "ModelCompileTests", dependencies: ["DataStores", "MemoryStore"], swiftSettings: swiftSettings),
        // The talks' model declarations, as written with only the import changed, round-tripped.
        .testTarget(
            name: "VerbatimModelsTests", dependencies: ["DataStores", "MemoryStore", "JSONStore", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "StoreProtocolTests",
            dependencies: ["DataStores", "StoreProtocol", "StoreBuildingBlocks", "MemoryStore", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "StoreBuildingBlocksTests",
            dependencies: ["DataStores", "StoreBuildingBlocks", "StoreProtocol", "StoreFiles", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "StoreFilesTests",
            dependencies: ["DataStores", "StoreFiles", "StoreProtocol", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "MemoryStoreTests",
            dependencies: ["DataStores", "MemoryStore", "StoreProtocol", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "JSONStoreTests",
            dependencies: ["DataStores", "JSONStore", "StoreProtocol", "StoreBuildingBlocks", "StoreFiles", "StoreTestHelper", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LogStoreTests",
            dependencies: ["DataStores", "LogStore", "StoreProtocol", "StoreBuildingBlocks", "StoreFiles", "StoreTestHelper", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        // ModelContainer over several stores: the store registry and locations, history across
        // stores, history updates (one from a StoreTestHelper process) and history consumers.
        .testTarget(
            name: "ContainerTests",
            dependencies: ["DataStores", "StoreProtocol", "StoreFiles", "JSONStore", "LogStore", "MemoryStore", "StoreTestHelper", "StoreTestSupport",
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
            dependencies: ["DataStores", "StoreConformance", "StoreProtocol", "StoreBuildingBlocks", "MemoryStore", "JSONStore", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        // The replicator: its rules, convergence against a model of them, kills at every phase.
        .testTarget(
            name: "StoreSyncTests",
            dependencies: ["DataStores", "StoreSync", "StoreProtocol", "JSONStore", "LogStore", "MemoryStore", "StoreTestHelper", "StoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["DataStores", "StoreConformance", "StoreProtocol", "MemoryStore", "JSONStore", "LogStore", "StoreTestSupport"],
            path: "Tests/Conformance",
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)

if case SwiftSyntaxSource.package = swiftSyntaxSource {
    package.dependencies.append(Package.Dependency.package(url: "https://github.com/swiftlang/swift-syntax", swiftSyntaxVersions))
}
