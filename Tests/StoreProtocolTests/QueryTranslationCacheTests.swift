import DataStores
import Foundation
import StoreProtocol
import Testing

/// A predicate translated again from the cache of translations by shape (one `#Predicate`
/// built with other captured values) means what it would mean translated afresh: its own
/// values, its own key paths and operators, NaN folded when a value is NaN.
@Suite struct QueryTranslationCacheTests {
    @Model final class Place {
        var name = ""
        var city = ""
        var note: String?
        var rating = 0
        var score = 0.0
        init() {}
    }

    static let name = QueryAttribute(name: "name", type: .string, isOptional: false)
    static let city = QueryAttribute(name: "city", type: .string, isOptional: false)
    static let note = QueryAttribute(name: "note", type: .string, isOptional: true)
    static let rating = QueryAttribute(name: "rating", type: .int, isOptional: false)
    static let score = QueryAttribute(name: "score", type: .double, isOptional: false)

    func filter(_ predicate: Predicate<Place>) -> FetchQuery.Filter {
        FetchQuery(FetchDescriptor(predicate: predicate)).filter
    }

    // One `#Predicate` each, built again with other values.
    static func named(_ value: String) -> Predicate<Place> { #Predicate { $0.name == value } }
    static func inCity(_ value: String) -> Predicate<Place> { #Predicate { $0.city == value } }
    static func below(_ value: Int) -> Predicate<Place> { #Predicate { $0.rating < value } }
    static func atMost(_ value: Int) -> Predicate<Place> { #Predicate { $0.rating <= value } }
    static func scoredBelow(_ value: Double) -> Predicate<Place> { #Predicate { $0.score < value } }
    static func mixed(_ low: Int, _ names: [String], _ part: String) -> Predicate<Place> {
        #Predicate { $0.rating > low && names.contains($0.name) && $0.note?.contains(part) == true }
    }
    static func prefixed(_ prefix: String?) -> Predicate<Place> {
        #Predicate { place in prefix.flatMap { place.name.starts(with: $0) } == true }
    }

    @Test func eachBuildTranslatesWithItsOwnValues() {
        for round in 0..<3 {
            for value in ["a", "b", ""] {
                #expect(filter(Self.named(value)) == .expression(.comparison(.attribute(Self.name), .equal, .constant(.string(value)))),
                        "round \(round)")
            }
        }
        for (low, names, part) in [(1, ["x", "y"], "p"), (7, [], "q"), (-3, ["z"], "")] {
            #expect(filter(Self.mixed(low, names, part)) == .expression(
                .and(.and(.comparison(.attribute(Self.rating), .greaterThan, .constant(.int(Int64(low)))),
                          .isMember(.attribute(Self.name), of: names.map { .string($0) })),
                     .comparison(.ifPresent(.attribute(Self.note), then: .string(.attribute(Self.note), .contains, .constant(.string(part)))),
                                 .equal, .constant(.bool(true))))))
        }
    }

    @Test func aValueUsedTwiceByOptionalChainingIsPutInBothPlaces() {
        for prefix in ["ab", nil, "c"] {
            let value: SnapshotValue = prefix.map { .string($0) } ?? .null
            #expect(filter(Self.prefixed(prefix)) == .expression(
                .comparison(.ifPresent(.constant(value), then: .string(.attribute(Self.name), .startsWith, .constant(value))),
                            .equal, .constant(.bool(true)))))
        }
    }

    @Test func shapesOfOneTypeWithOtherKeyPathsOrOperatorsStayApart() {
        // Both pairs are predicates of one expression type.
        #expect(filter(Self.named("x")) == .expression(.comparison(.attribute(Self.name), .equal, .constant(.string("x")))))
        #expect(filter(Self.inCity("x")) == .expression(.comparison(.attribute(Self.city), .equal, .constant(.string("x")))))
        #expect(filter(Self.below(3)) == .expression(.comparison(.attribute(Self.rating), .lessThan, .constant(.int(3)))))
        #expect(filter(Self.atMost(3)) == .expression(.comparison(.attribute(Self.rating), .lessThanOrEqual, .constant(.int(3)))))
    }

    @Test func aNaNValueIsFoldedAndTheNextValueIsNot() {
        #expect(filter(Self.scoredBelow(1)) == .expression(.comparison(.attribute(Self.score), .lessThan, .constant(.double(1)))))
        #expect(filter(Self.scoredBelow(.nan)) == .expression(.constant(.bool(false))))
        #expect(filter(Self.scoredBelow(2)) == .expression(.comparison(.attribute(Self.score), .lessThan, .constant(.double(2)))))
    }

    @Test func concurrentTranslationsEachGetTheirValues() async {
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for index in 0..<200 {
                        let value = "\(task)-\(index)"
                        let expected = FetchQuery.Filter.expression(.comparison(.attribute(Self.city), .equal, .constant(.string(value))))
                        if FetchQuery(FetchDescriptor(predicate: Self.inCity(value))).filter != expected { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func predicatesOfEndlessShapesStillTranslate() {
        // A key path made at run time is a new object each time, so each predicate is a new shape:
        // far more than the cache keeps.
        for index in 0..<1_500 {
            // Key paths are immutable; the cast only restores the `Sendable` a `#Predicate` needs.
            let keyPath = unsafeBitCast((\Place.self).appending(path: \Place.name), to: (any KeyPath<Place, String> & Sendable).self)
            let value = "v\(index)"
            let predicate = Predicate<Place> {
                PredicateExpressions.build_Equal(
                    lhs: PredicateExpressions.build_KeyPath(root: PredicateExpressions.build_Arg($0), keyPath: keyPath),
                    rhs: PredicateExpressions.build_Arg(value))
            }
            #expect(filter(predicate) == .expression(.comparison(.attribute(Self.name), .equal, .constant(.string(value)))))
        }
        #expect(QueryTranslationCache.count <= QueryTranslationCache.capacity)
    }

    // An expression type without a translation, whose conformance (none) is remembered too.
    static func offsetBelow(_ value: Int) -> Predicate<Place> { #Predicate { $0.rating + 1 < value } }
    static func narrowed(_ value: String, _ limit: Int) -> Predicate<Place> { #Predicate { $0.name == value && $0.rating * 2 < limit } }

    @Test func eachExpressionTypeKeepsItsTranslationOrItsLackOfOneOnEveryAsk() {
        // Asked in turn, so that each ask after the first finds its type's conformance remembered
        // (QueryTranslationCache.translatable): one that has none stays untranslated, one that
        // has one translates with its own values, one whose first operand translates is narrowed.
        for round in 0..<4 {
            for value in [3, -1] {
                guard case .untranslated = filter(Self.offsetBelow(value)) else {
                    Issue.record("round \(round): rating + 1 < \(value) translated")
                    continue
                }
                #expect(filter(Self.below(value)) == .expression(.comparison(.attribute(Self.rating), .lessThan, .constant(.int(Int64(value))))),
                        "round \(round)")
                guard case let .narrowed(leading, _) = filter(Self.narrowed("n\(value)", value)) else {
                    Issue.record("round \(round): name == n\(value) && rating * 2 < \(value) not narrowed")
                    continue
                }
                #expect(leading == .comparison(.attribute(Self.name), .equal, .constant(.string("n\(value)"))), "round \(round)")
            }
        }
    }
}
