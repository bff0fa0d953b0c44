import Foundation
import StoreProtocol

/// Inserts trips named `names` (start dates day 0, 1, 2, …, ratings 0, 1, 2, …) and saves.
@discardableResult
func insertTrips(_ names: [String], into container: ModelContainer, author: String? = nil) throws -> [SuiteTrip] {
    let context = ModelContext(container)
    context.author = author
    let trips = names.enumerated().map { SuiteTrip(name: $1, startDate: SuiteTrip.day($0), rating: $0) }
    for trip in trips { context.insert(trip) }
    try context.save()
    return trips
}

/// Every trip's name in a fresh context, in the store's order.
func storedTripNames(_ container: ModelContainer) throws -> [String] {
    try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>()).map(\.name)
}

/// Sorted names, for checks that do not depend on the store's unsorted order.
func sortedTripNames(_ container: ModelContainer) throws -> [String] {
    try storedTripNames(container).sorted()
}

/// All history after `token`.
func history(_ container: ModelContainer, after token: DefaultHistoryToken? = nil) throws -> [DefaultHistoryTransaction] {
    try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
}

/// The kinds of a transaction's changes, "insert SuiteTrip" and so on.
func kinds(_ transaction: DefaultHistoryTransaction) -> [String] {
    transaction.changes.map { change in
        switch change {
        case .insert(let c): return "insert \(c.changedPersistentIdentifier.entityName)"
        case .update(let c): return "update \(c.changedPersistentIdentifier.entityName)"
        case .delete(let c): return "delete \(c.changedPersistentIdentifier.entityName)"
        }
    }
}

/// Saves snapshots straight into a store, bypassing the context (to plant bad data).
func saveDirectly(_ snapshots: [DefaultSnapshot], into store: any DataStore) throws {
    func run<S: DataStore>(_ store: S) throws {
        _ = try store.save(DataStoreSaveChangesRequest(
            editingState: EditingState(author: "suite"),
            inserted: snapshots.map { S.Snapshot(persistentIdentifier: $0.persistentIdentifier, values: $0.values) }))
    }
    try run(store)
}

/// A trip's identity and all its attribute values, for comparing states of a store.
func tripState(_ container: ModelContainer) throws -> [String] {
    try ModelContext(container).fetch(FetchDescriptor<SuiteTrip>(sortBy: [SortDescriptor(\.name)])).map {
        "\($0.id) \($0.name) \($0.destination) \($0.startDate.timeIntervalSince1970) \($0.rating) \($0.notes ?? "nil")"
    }
}
