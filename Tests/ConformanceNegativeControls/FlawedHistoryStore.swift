import Foundation
import StoreBuildingBlocks
import StoreProtocol

/// A flaw in how a store numbers, deletes, retains, expires, erases or limits history (or
/// deletes rows): the history lifecycle cases' negative control. Each is a bug a backend author
/// could really write, several of them planted in a third-party backend that passed the suite.
enum HistoryFlaw: String, CaseIterable, Sendable {
    /// Reads history after any token it knows, even when history after it was deleted.
    case neverExpiresTokens
    /// Expires only the tokens before its oldest kept transaction, as if history were only ever
    /// deleted from the oldest end.
    case expiresBelowTheOldestKeptTransactionOnly
    /// Numbers the next transaction after the newest one it keeps (`max(tx) + 1`): numbers
    /// start again once all history, or the newest, is deleted, and after an erase.
    case numbersFromTheNewestKeptTransaction
    /// Keeps its transaction counter in memory only: reopened, it numbers after the newest kept
    /// transaction.
    case forgetsTheCounterWhenReopened
    /// Erases history with its counter kept and expired through the newest transaction, so the
    /// newest token taken before the erase resumes into history written after it.
    case keepsTheNewestTokenValidAcrossErase
    /// Erases the rows and keeps the history.
    case eraseKeepsHistory
    /// Erases in memory and never writes the erase: reopened, the data is back.
    case eraseIsNotWrittenThrough
    /// Applies a history descriptor's `fetchLimit` before its predicate and sort.
    case limitsBeforeThePredicate
    /// Ignores the configuration's history retention.
    case ignoresRetention
    /// Saves the deletes of the first deleted model's entity only.
    case savesTheDeletesOfOneEntityOnly
}

struct FlawedHistoryStoreConfiguration: DataStoreConfiguration {
    typealias Store = FlawedHistoryStore
    var name = "flawed history"
    var schema: Schema?
    var allowsSave = true
    var historyRetention = HistoryRetention.unlimited
    /// The stored state this configuration names: opening it again reopens that state.
    let key = UUID()
    /// `nil`: the store as it should be, the control's control.
    let flaw: HistoryFlaw?
}

/// A store with rows and history kept across "reopening" (in a table shared by the process,
/// keyed by the configuration), behind one ``HistoryFlaw``.
final class FlawedHistoryStore: SnapshotTableStore, @unchecked Sendable {
    // @unchecked: `unwritten` is only touched while `disk` is locked.
    struct State: Sendable {
        var identifier = UUID().uuidString
        var table: SnapshotTable
        var history = HistoryLog()
    }

    /// What every configuration holds, as a disk would.
    private static let disk = Locked<[UUID: State]>([:])

    let configuration: FlawedHistoryStoreConfiguration
    let identifier: String
    let schema: Schema
    /// The state this instance reads and writes instead of the disk's, after an erase it never wrote.
    private var unwritten: State?

    init(_ configuration: FlawedHistoryStoreConfiguration) throws {
        guard let schema = configuration.schema else { throw DataStoreError(.invalidSchema, "Open a FlawedHistoryStore through a ModelContainer.") }
        self.configuration = configuration
        self.schema = schema
        identifier = Self.disk.withLock { disk in
            var state = disk[configuration.key] ?? State(table: SnapshotTable(schema: schema))
            if configuration.flaw == .forgetsTheCounterWhenReopened {
                state.history = HistoryLog(records: state.history.records, expiredThrough: state.history.expiredThrough)
            }
            disk[configuration.key] = state
            return state.identifier
        }
    }

    private var flaw: HistoryFlaw? { configuration.flaw }

    private func update<R>(_ body: (inout State) throws -> R) throws -> R {
        try Self.disk.withLock { disk in
            var state = unwritten ?? disk[configuration.key]!
            let result = try body(&state)
            if unwritten != nil { unwritten = state } else { disk[configuration.key] = state }
            return result
        }
    }

    private func requireWritable() throws {
        guard configuration.allowsSave else { throw DataStoreError(.readOnly, "The flawed history store is read-only; nothing was saved.") }
    }

    func withCurrentRows<T>(_ body: (SnapshotTable, HistoryLog) throws -> T) throws -> T {
        try update { state in try body(state.table, state.history) }
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try requireWritable()
        var request = request
        if flaw == .savesTheDeletesOfOneEntityOnly, let first = request.deleted.first?.persistentIdentifier.entityName {
            request.deleted = request.deleted.filter { $0.persistentIdentifier.entityName == first }
        }
        return try update { state in
            let outcome = try state.table.apply(request, storeIdentifier: identifier)
            guard !outcome.changes.isEmpty else { return outcome.result }
            state.history.append(author: request.editingState.author, changes: outcome.changes)
            if flaw != .ignoresRetention { state.history.apply(configuration.historyRetention) }
            return outcome.result
        }
    }

    func erase() throws {
        try requireWritable()
        if flaw == .eraseIsNotWrittenThrough { Self.disk.withLock { disk in unwritten = unwritten ?? disk[configuration.key] } }
        try update { state in
            state.table.removeAll()
            let last = state.history.lastTransactionNumber
            switch flaw {
            case .eraseKeepsHistory: break
            case .keepsTheNewestTokenValidAcrossErase: state.history = HistoryLog(lastTransactionNumber: last, expiredThrough: last)
            case .numbersFromTheNewestKeptTransaction: state.history = HistoryLog()
            default: state.history.removeAll()
            }
        }
    }

    func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try requireWritable()
        try update { state in
            let before = state.history.expiredThrough
            try state.history.delete(descriptor, storeIdentifier: identifier, schema: schema)
            let log = state.history
            switch flaw {
            case .numbersFromTheNewestKeptTransaction:
                state.history = HistoryLog(records: log.records, expiredThrough: log.expiredThrough)
            case .expiresBelowTheOldestKeptTransactionOnly:
                let oldestKept = log.records.first?.transactionNumber ?? log.nextTransactionNumber
                state.history = HistoryLog(records: log.records, lastTransactionNumber: log.lastTransactionNumber,
                                           expiredThrough: max(before, oldestKept - 1))
            default: break
            }
        }
    }

    func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try withCurrentRows { _, history in
            var history = history
            if flaw == .neverExpiresTokens {
                history = HistoryLog(records: history.records, lastTransactionNumber: history.lastTransactionNumber)
            }
            guard flaw == .limitsBeforeThePredicate, descriptor.fetchLimit != nil else {
                return try history.fetch(descriptor, storeIdentifier: identifier, schema: schema)
            }
            var firstOnes = descriptor
            firstOnes.predicate = nil
            firstOnes.sortBy = []
            var rest = descriptor
            rest.fetchLimit = nil
            return try rest.apply(to: try history.fetch(firstOnes, storeIdentifier: identifier, schema: schema))
        }
    }
}
