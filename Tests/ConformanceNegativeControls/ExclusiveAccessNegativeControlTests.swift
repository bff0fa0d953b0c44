import Foundation
import StoreConformance
import StoreProtocol
import Testing

/// The `exclusiveAccess` cases' negative control: a store whose access does not exclude fails
/// both exclusion cases; the same wrapper with the memory store's own access passes every case.
@Suite struct ExclusiveAccessNegativeControlTests {
    static func target(excludes: Bool) -> ConformanceTarget {
        ConformanceTarget(name: excludes ? "excluding wrapper" : "non-excluding", capabilities: [.updates, .persistence]) {
            NonExcludingStoreConfiguration(excludes: excludes)
        }
    }

    static func cases(_ target: ConformanceTarget) -> [ConformanceCase] {
        ConformanceSuite.cases(for: target).filter { $0.area == "exclusiveAccess" }
    }

    static let exclusionCases = ["exclusiveAccess/oneStoreGivesItToOneCallerAtATime",
                                 "exclusiveAccess/twoContainersOnOneConfigurationNeverHoldItAtOnce"]

    /// The case does not depend on the scheduler to catch it (each turn's first body waits until
    /// the other caller is at the access): every one of five runs fails.
    @Test(arguments: exclusionCases)
    func aStoreWhoseAccessDoesNotExcludeFails(_ name: String) async throws {
        let target = Self.target(excludes: false)
        let check = try #require(Self.cases(target).first { $0.description == name })
        var passes = 0
        for _ in 0..<5 {
            do { try await check.run(target); passes += 1 } catch {}
        }
        #expect(passes == 0, "\(name) passed a store whose access does not exclude \(passes) times of 5")
    }

    @Test func theWrapperWithItsStoresOwnAccessConforms() async throws {
        let target = Self.target(excludes: true)
        let cases = Self.cases(target)
        #expect(cases.count == 5)
        var failed: [String] = []
        for check in cases {
            do { try await check.run(target) } catch { failed.append("\(check): \(error)") }
        }
        #expect(failed.isEmpty, "\(failed)")
    }
}
