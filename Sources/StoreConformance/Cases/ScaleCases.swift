import Foundation
import StoreProtocol

/// Enough rows and transactions to reach the size-dependent paths of a backend (slot
/// compaction, index rebuilds, file compaction, segment seals), reopening after each step.
enum ScaleCases {
    static let all: [ConformanceCase] = [
        ConformanceCase(area: "scale", name: "hundredsOfRowsSurviveDeletingMostOfThem", requires: .updates) { target in
            let configuration = try target.makeConfiguration()
            var container = try target.open(configuration)
            var expected: [UUID: String] = [:]
            for batch in 0..<3 {
                let names = (0..<100).map { String(format: "t%03d", batch * 100 + $0) }
                for trip in try insertTrips(names, into: container) { expected[trip.id] = trip.name }
            }
            func checkAll(_ step: String) throws {
                let context = ModelContext(container)
                try checkEqual(try context.fetchCount(FetchDescriptor<SuiteTrip>()), expected.count, "count \(step)")
                for (id, name) in expected {
                    let found = try context.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.id == id }))
                    try checkEqual(found.map(\.name), [name], "the trip with id \(id) \(step)")
                }
                try checkEqual(try sortedTripNames(container), expected.values.sorted(), "every name \(step)")
            }
            // Delete five of every six, in several saves, reopening after each when persistent.
            let doomed = expected.filter { Int($0.value.dropFirst())! % 6 != 0 }.map(\.key)
            for chunk in stride(from: 0, to: doomed.count, by: 50) {
                let context = ModelContext(container)
                for id in doomed[chunk..<min(doomed.count, chunk + 50)] {
                    context.delete(try require(try context.fetch(FetchDescriptor<SuiteTrip>(predicate: #Predicate { $0.id == id })).first, "trip \(id)"))
                    expected[id] = nil
                }
                try context.save()
                if target.capabilities.contains(.persistence) { container = try target.open(configuration) }
                try checkAll("after deleting \(chunk + 50) trips")
            }
            for trip in try insertTrips((0..<20).map { "new\($0)" }, into: container) { expected[trip.id] = trip.name }
            try checkAll("after inserting again")
        },
        ConformanceCase(area: "scale", name: "everyTokenOfManyTransactionsResumesExactly", requires: .history) { target in
            let configuration = try target.makeConfiguration()
            var container = try target.open(configuration)
            for index in 0..<120 {
                let context = ModelContext(container)
                context.insert(SuiteTrip(name: "trip \(index)", startDate: SuiteTrip.day(index)))
                try context.save()
            }
            for round in 0..<(target.capabilities.contains(.persistence) ? 2 : 1) {
                if round == 1 { container = try target.open(configuration) }
                let all = try history(container)
                try checkEqual(all.count, 120, "transactions")
                for index in stride(from: 0, to: 120, by: 7) {
                    let after = try history(container, after: all[index].token)
                    try checkEqual(after.map(\.transactionIdentifier), all[(index + 1)...].map(\.transactionIdentifier),
                                   "transactions after token \(index + 1)\(round == 1 ? ", reopened" : "")")
                }
            }
        },
    ]
}
