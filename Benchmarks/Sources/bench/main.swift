import Foundation

// Our backends beside SQLite (GRDB) and plain Swift, on the same data with the same durability,
// in one run. Prints a Markdown table on standard output, progress on standard error.
//
//   swift run -c release --package-path Benchmarks bench [--quick] [json|log|memory|history|migration|context|models ...]
//
// `bench --callgrind <operation> [count]` does one model operation `count` times, for callgrind
// (see ModelBenchmarks.swift); the `models` section runs it under valgrind itself.

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--callgrind" {
    do {
        try runCallgrindMode(Array(arguments.dropFirst()))
        exit(0)
    } catch {
        progress("bench: \(error)")
        exit(1)
    }
}
let scale = Scale(isQuick: arguments.contains("--quick"))
let sections = arguments.filter { !$0.hasPrefix("--") }
func wanted(_ section: String) -> Bool { sections.isEmpty || sections.contains(section) }

let directory = FileManager.default.temporaryDirectory.appending(path: "bench-\(UUID().uuidString)").path
do {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let started = Date()
    var results: [Result] = []
    // Each section starts with the disk flushed, so that one section's writes still in the page
    // cache do not slow the next one's fsyncs.
    func section(_ name: String, _ run: () throws -> [Result]) rethrows {
        guard wanted(name) else { return }
        sync()
        results += try run()
    }
    try section("json") { try benchmarkJSONStore(scale, in: directory) }
    // Under `json` too: its main row is JSONStore's, beside GRDB.
    // `bench relationships` runs this row alone.
    try section(sections.contains("relationships") ? "relationships" : "json") { try benchmarkRelationships(scale, in: directory) }
    try section("log") { try benchmarkLogStore(scale, in: directory) }
    try section("memory") { try benchmarkMemoryStore(scale) }
    try section("history") { try benchmarkHistory(scale, in: directory) }
    try section("migration") { try benchmarkMigration(scale, in: directory) }
    try section("context") { try benchmarkContext(scale, in: directory) }
    try section("models") { try benchmarkModels(scale) }
    printTable(results)
    print("\n\(scale.isQuick ? "Quick run" : "Full run") in \(Int(Date().timeIntervalSince(started))) s; "
          + "medians; ratio = ours ÷ reference (for rates, higher is better).")
} catch {
    progress("bench: \(error)")
    exit(1)
}
