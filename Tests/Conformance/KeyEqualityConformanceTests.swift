import StoreConformance
import Testing

/// The key-equality cases (also run by each backend's whole suite) by themselves, on every
/// backend of this package: ids Swift finds equal (`"café"` precomposed and decomposed, `0.0` and
/// `-0.0`) are one model, and an insert-only store refuses the second spelling as a stored id.
@Test(arguments: [memoryTarget, jsonTarget, logTarget, fallbackTarget])
func keysSwiftFindsEqualAreOneModel(_ target: ConformanceTarget) async throws {
    let cases = ConformanceSuite.cases(for: target).filter { $0.area == "keys" }
    #expect(!cases.isEmpty)
    for check in cases { try await check.run(target) }
}
