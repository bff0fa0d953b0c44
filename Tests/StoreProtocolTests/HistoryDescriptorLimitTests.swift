import Foundation
import StoreProtocol
import Testing

/// `HistoryDescriptor.apply`, which stores call on the transactions after a token: the limit
/// counts what the predicate selects, in the sort's order.
@Suite struct HistoryDescriptorLimitTests {
    static let transactions: [DefaultHistoryTransaction] = (1...6).map { (number: Int64) in
        let author: String = number % 3 == 0 ? "widget" : "app"
        return DefaultHistoryTransaction(
            transactionIdentifier: number, token: DefaultHistoryToken(storeIdentifier: "s", transactionNumber: number),
            author: author, timestamp: Date(timeIntervalSince1970: Double(number)),
            storeIdentifier: "s", bundleIdentifier: "b", processIdentifier: "p", changes: [])
    }

    /// Transactions 3 and 6 are the widget's.
    static let widget: [Int64] = [3, 6]

    @Test(arguments: [nil, 0, 1, 2, 5] as [Int?])
    func theLimitCountsWhatThePredicateSelects(_ limit: Int?) throws {
        let count = limit ?? .max
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "widget" }, fetchLimit: limit)
        #expect(try descriptor.apply(to: Self.transactions).map(\.transactionIdentifier) == Array(Self.widget.prefix(count)))
        descriptor.sortBy = [SortDescriptor(\.transactionIdentifier, order: .reverse)]
        #expect(try descriptor.apply(to: Self.transactions).map(\.transactionIdentifier) == Array(Self.widget.reversed().prefix(count)))
    }
}
