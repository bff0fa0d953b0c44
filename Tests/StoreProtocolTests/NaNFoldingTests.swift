import DataStores
import Foundation
import MemoryStore
import StoreProtocol
import Testing

/// `FetchQuery` folds every comparison with a NaN constant to the constant it always is (`false`,
/// `true` for `!=`) and leaves NaN out of `contains` lists, so that no store has to render NaN;
/// what a store then answers is what Foundation's `Predicate.evaluate` says.
@Suite struct NaNFoldingTests {
    @Model final class Reading {
        var id = UUID()
        var value: Double
        var single: Float
        var maybe: Double?
        var taken: Date
        init(_ value: Double, maybe: Double?) {
            self.value = value
            single = Float(value)
            self.maybe = maybe
            taken = Date(timeIntervalSinceReferenceDate: value)
        }
    }

    static let notANumber = Double.nan, singleNaN = Float.nan, nanDate = Date(timeIntervalSinceReferenceDate: .nan)
    static let predicates: [(String, Predicate<Reading>)] = {
        let notANumber = Self.notANumber, singleNaN = Self.singleNaN, nanDate = Self.nanDate
        let withNaN = [notANumber, 1.0], onlyNaN = [notANumber]
        return [
            ("== NaN", #Predicate<Reading> { $0.value == notANumber }),
            ("!= NaN", #Predicate<Reading> { $0.value != notANumber }),
            ("< NaN", #Predicate<Reading> { $0.value < notANumber }),
            ("<= NaN", #Predicate<Reading> { $0.value <= notANumber }),
            ("> NaN", #Predicate<Reading> { $0.value > notANumber }),
            (">= NaN", #Predicate<Reading> { $0.value >= notANumber }),
            ("NaN < value", #Predicate<Reading> { notANumber < $0.value }),
            ("NaN != value", #Predicate<Reading> { notANumber != $0.value }),
            ("optional == NaN", #Predicate<Reading> { $0.maybe == notANumber }),
            ("optional != NaN", #Predicate<Reading> { $0.maybe != notANumber }),
            ("Float > NaN", #Predicate<Reading> { $0.single > singleNaN }),
            ("Date < NaN date", #Predicate<Reading> { $0.taken < nanDate }),
            ("Date != NaN date", #Predicate<Reading> { $0.taken != nanDate }),
            ("[NaN, 1].contains", #Predicate<Reading> { withNaN.contains($0.value) }),
            ("[NaN].contains", #Predicate<Reading> { onlyNaN.contains($0.value) }),
            ("!(>= NaN) && > 0", #Predicate<Reading> { !($0.value >= notANumber) && $0.value > 0 }),
            ("== NaN || != NaN", #Predicate<Reading> { $0.value == notANumber || $0.maybe != notANumber }),
        ]
    }()

    /// Whether a NaN constant is anywhere in the expression.
    static func holdsNaN(_ expression: QueryExpression) -> Bool {
        switch expression {
        case .attribute: false
        case .constant(let value): isNaN(value)
        case let .comparison(lhs, _, rhs), let .and(lhs, rhs), let .or(lhs, rhs), let .coalesce(lhs, rhs),
             let .ifPresent(lhs, then: rhs), let .string(lhs, _, rhs):
            holdsNaN(lhs) || holdsNaN(rhs)
        case .not(let operand): holdsNaN(operand)
        case let .isMember(element, constants): holdsNaN(element) || constants.contains(where: isNaN)
        }
    }

    static func isNaN(_ value: SnapshotValue) -> Bool {
        switch value {
        case .double(let d): d.isNaN
        case .date(let d): d.timeIntervalSinceReferenceDate.isNaN
        default: false
        }
    }

    @Test func comparisonsWithNaNConstantsAreFolded() {
        for (name, predicate) in Self.predicates {
            guard case .expression(let expression) = FetchQuery(FetchDescriptor(predicate: predicate)).filter else {
                Issue.record("\(name) translates")
                continue
            }
            // Not `expression` in the message: Foundation's `Date.description` traps on a NaN interval.
            let holdsNaN = Self.holdsNaN(expression)
            #expect(!holdsNaN, "\(name) still compares with a NaN constant")
        }
        let notANumber = Self.notANumber
        #expect(FetchQuery(FetchDescriptor(predicate: #Predicate<Reading> { $0.value < notANumber })).filter == .expression(.constant(.bool(false))))
        #expect(FetchQuery(FetchDescriptor(predicate: #Predicate<Reading> { $0.value != notANumber })).filter == .expression(.constant(.bool(true))))
        let withNaN = [notANumber, 1.0]
        #expect(FetchQuery(FetchDescriptor(predicate: #Predicate<Reading> { withNaN.contains($0.value) })).filter == .expression(
            .isMember(.attribute(QueryAttribute(name: "value", type: .double, isOptional: false)), of: [.double(1)])))
    }

    /// A NaN inside `??` is not always the comparison's operand: it stays.
    @Test func aNaNInsideCoalesceStays() {
        let notANumber = Self.notANumber
        guard case .expression(let expression) = FetchQuery(FetchDescriptor(predicate: #Predicate<Reading> { ($0.maybe ?? notANumber) < 1 })).filter else {
            Issue.record("?? translates")
            return
        }
        #expect(Self.holdsNaN(expression))
    }

    @Test func aStoreAnswersWhatPredicateEvaluateSays() throws {
        let container = try ModelContainer(for: Reading.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        let values: [Double] = [.nan, -0.0, 0, 1, -1, .infinity, -.infinity, 2.5]
        for value in values {
            context.insert(Reading(value, maybe: value))
            context.insert(Reading(value, maybe: nil))
        }
        try context.save()
        let fresh = ModelContext(container)
        let all = try fresh.fetch(FetchDescriptor<Reading>())
        #expect(all.count == 2 * values.count)
        for (name, predicate) in Self.predicates {
            let expected = try Set(all.filter { try predicate.evaluate($0) }.map(\.id))
            let fetched = try Set(fresh.fetch(FetchDescriptor(predicate: predicate)).map(\.id))
            #expect(fetched == expected, "\(name): \(fetched.count) fetched, \(expected.count) expected")
            #expect(try fresh.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "\(name)")
        }
    }
}
