import DataStores
import Foundation
import StoreProtocol
import Testing

/// What `FetchQuery` translates, what it reports as untranslated, and the SQL rendering the
/// README shows backend authors.
@Suite struct QueryTranslationTests {
    @Model final class Item {
        enum Kind: String, Codable, Sendable { case a, b }
        var name = ""
        var note: String?
        var rating = 0
        var big: UInt64 = 0
        var score: Float = 0
        var done = false
        var kind = Kind.a
        init() {}
    }

    static let name = QueryAttribute(name: "name", type: .string, isOptional: false)
    static let note = QueryAttribute(name: "note", type: .string, isOptional: true)
    static let rating = QueryAttribute(name: "rating", type: .int, isOptional: false)

    func filter(_ predicate: Predicate<Item>) -> FetchQuery.Filter {
        FetchQuery(FetchDescriptor(predicate: predicate)).filter
    }

    @Test func comparisonsAndLogicTranslate() {
        #expect(filter(#Predicate { $0.rating > 2 }) == .expression(.comparison(.attribute(Self.rating), .greaterThan, .constant(.int(2)))))
        let names = ["a", "b"]
        #expect(filter(#Predicate { $0.rating >= 1 && !(names.contains($0.name) || $0.note == nil) }) == .expression(
            .and(.comparison(.attribute(Self.rating), .greaterThanOrEqual, .constant(.int(1))),
                 .not(.or(.isMember(.attribute(Self.name), of: [.string("a"), .string("b")]),
                          .comparison(.attribute(Self.note), .equal, .constant(.null)))))))
        #expect(filter(#Predicate { $0.note?.contains("x") == true }) == .expression(
            .comparison(.ifPresent(.attribute(Self.note), then: .string(.attribute(Self.note), .contains, .constant(.string("x")))),
                        .equal, .constant(.bool(true)))))
        #expect(filter(#Predicate { ($0.note ?? "") < "m" }) == .expression(
            .comparison(.coalesce(.attribute(Self.note), .constant(.string(""))), .lessThan, .constant(.string("m")))))
        #expect(filter(#Predicate { $0.done }) == .expression(.attribute(QueryAttribute(name: "done", type: .bool, isOptional: false))))
        let huge = UInt64.max, third = Float(1) / 3
        #expect(filter(#Predicate { $0.big == huge }) == .expression(
            .comparison(.attribute(QueryAttribute(name: "big", type: .uint64, isOptional: false)), .equal, .constant(.unsigned(.max)))))
        #expect(filter(#Predicate { $0.score < third }) == .expression(
            .comparison(.attribute(QueryAttribute(name: "score", type: .float, isOptional: false)), .lessThan, .constant(.double(Double(third))))))
    }

    @Test func whatCannotBeTranslatedIsReported() {
        let kind = Item.Kind.b
        guard case .untranslated = filter(#Predicate { $0.kind == kind }) else {
            Issue.record("an enum's == (possibly custom) is not translated")
            return
        }
        guard case .untranslated = filter(#Predicate { $0.note! == "x" }) else {
            Issue.record("a force unwrap, which throws on nil, is not translated")
            return
        }
        guard case .untranslated = filter(#Predicate { $0.name.count > 2 }) else {
            Issue.record("a nested key path is not translated")
            return
        }
        // The leading operands of && that translate still narrow the rows.
        guard case .narrowed(let leading, _) = filter(#Predicate { $0.rating > 2 && $0.kind == kind }) else {
            Issue.record("the leading conjunct narrows")
            return
        }
        #expect(leading == .comparison(.attribute(Self.rating), .greaterThan, .constant(.int(2))))
        guard case .untranslated = filter(#Predicate { $0.kind == kind && $0.rating > 2 }) else {
            Issue.record("a conjunct after an untranslated one does not narrow (the first may throw)")
            return
        }
    }

    @Test func sortsTranslateWhenTheirComparisonIsKnown() {
        let sorts = FetchQuery(FetchDescriptor<Item>(sortBy: [
            SortDescriptor(\.rating, order: .reverse), SortDescriptor(\.note), SortDescriptor(\.name, comparator: .lexical),
        ])).sort
        #expect(sorts == .keys([
            QuerySortKey(attribute: Self.rating, order: .reverse),
            QuerySortKey(attribute: Self.note, order: .forward),
            QuerySortKey(attribute: Self.name, order: .forward, stringComparator: .lexical),
        ]))
        var changed = SortDescriptor(\Item.name)
        changed.order = .reverse   // Foundation still compares ascending: not translated
        guard case .untranslated = FetchQuery(FetchDescriptor<Item>(sortBy: [changed])).sort else {
            Issue.record("a SortDescriptor whose order was changed after it was made is not translated")
            return
        }
    }

    @Test func theRequestCarriesTheTranslation() {
        var request = DataStoreFetchRequest(descriptor: FetchDescriptor<Item>(predicate: #Predicate { $0.rating > 2 }))
        #expect(request.query.isFullyTranslated)
        request.descriptor.predicate = nil
        #expect(request.query.filter == .all, "setting the descriptor translates it again")
    }

    @Test func comparisonsFollowSwift() {
        #expect(QueryComparison.equal.evaluate(.double(-0.0), .double(0.0)) == true)
        #expect(QueryComparison.equal.evaluate(.double(.nan), .double(.nan)) == false)
        #expect(QueryComparison.notEqual.evaluate(.double(.nan), .double(.nan)) == true)
        #expect(QueryComparison.lessThanOrEqual.evaluate(.double(.nan), .double(1)) == false)
        #expect(QueryComparison.equal.evaluate(.string("caf\u{E9}"), .string("cafe\u{301}")) == true)
        #expect(QueryComparison.lessThan.evaluate(.int(.max), .unsigned(UInt64(Int64.max) + 1)) == true)
        #expect(QueryComparison.equal.evaluate(.int(1 << 53), .int((1 << 53) + 1)) == false)
        #expect(QueryComparison.equal.evaluate(.null, .null) == true)
        #expect(QueryStringOperation.contains.evaluate("caf\u{E9}", "e") == false)
        #expect(QueryStringOperation.startsWith.evaluate("cafe\u{301}", "cafe") == false)
        #expect(QueryValueType.int8.canonicalValue(of: .int(300)) == nil, "a value the model could not read")
        #expect(QueryValueType.uint64.canonicalValue(of: .unsigned(5)) == .int(5))
    }
}
