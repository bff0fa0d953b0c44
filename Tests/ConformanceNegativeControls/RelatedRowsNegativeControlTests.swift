import Foundation
import MemoryStore
import StoreConformance
import StoreProtocol
import StoreTestSupport
import Testing

/// The related-rows case's negative control: a store that sends related rows under other
/// identifiers, or with values it no longer holds, fails it; one that sends its rows as they are,
/// or none, passes.
@Suite struct RelatedRowsNegativeControlTests {
    static let caseName = "related rows/relatedRowsAreTheStoredRowsUnderTheirOwnIdentifiers"

    private static func run(_ mode: RelatedRowsMode) async throws -> (any Error)? {
        let target = ConformanceTarget(name: "related rows (\(mode))", capabilities: [.updates]) {
            RelatedRowsStoreConfiguration(MemoryStoreConfiguration(), mode: mode)
        }
        let check = try #require(ConformanceSuite.cases(for: target).first { $0.description == caseName })
        do {
            try await check.run(target)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [RelatedRowsMode.misKeysRows, .sendsStaleValues])
    func theCaseCatches(_ flaw: RelatedRowsMode) async throws {
        let error = try await Self.run(flaw)
        #expect(error is ConformanceFailure, "\(flaw) fails \(Self.caseName): \(String(describing: error))")
    }

    @Test(arguments: [RelatedRowsMode.passesThrough, .sendsNone, .sendsHalf])
    func aStoreSendingItsRowsOrNonePasses(_ mode: RelatedRowsMode) async throws {
        let error = try await Self.run(mode)
        #expect(error == nil, "\(String(describing: error))")
    }
}
