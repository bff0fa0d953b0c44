import Foundation
import JSONStore
import StoreProtocol

/// `fetchHistory` after a token with 10 new transactions, in JSON stores holding few and many
/// transactions: the cost must follow what is new, not what is kept.
func benchmarkHistory(_ scale: Scale, in directory: String) throws -> [Result] {
    var figures: [Int: Double] = [:]
    for size in scale.historySizes {
        progress("History: \(size.grouped) transactions")
        let container = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(
            url: URL(filePath: directory + "/history-\(size).json")))
        func save(_ number: Int) throws {
            let context = ModelContext(container)
            context.insert(Trip(TripRecord.make(number)))
            try context.save()
        }
        for number in 0..<size - 10 { try save(number) }
        let token = try container.currentHistoryToken()
        for number in size - 10..<size { try save(number) }
        let reader = ModelContext(container)
        figures[size] = try median(runs: 101) {
            let transactions = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
            precondition(transactions.count == 10, "10 transactions are new, not \(transactions.count)")
        }
    }
    guard let small = scale.historySizes.first, let large = scale.historySizes.last,
          let smallTime = figures[small], let largeTime = figures[large] else { return [] }
    return [
        Result(area: "History", name: "fetchHistory, 10 new of \(small.grouped)", unit: .time, ours: smallTime,
               target: .atMost(1e-3)),
        Result(area: "History", name: "fetchHistory, 10 new of \(large.grouped)", unit: .time, ours: largeTime,
               referenceName: "of \(small.grouped)", reference: smallTime, target: .ratio(1.2)),
    ]
}
