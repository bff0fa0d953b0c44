import Foundation
import StoreProtocol
import StoreBuildingBlocks

// History: the log's own types (`LogTransaction`) and, through `DefaultHistoryBridging`,
// the container-wide ones, read from the records; deleting history drops whole old segments.
extension LogStore {
    private func payloads(after position: Int64?) throws -> [LogPayload] {
        try read { state in
            if let position {
                try HistoryLog.check(position, lastTransactionNumber: state.lastTransaction,
                                     expiredThrough: state.expiredThrough, storeIdentifier: identifier)
            }
            var result: [LogPayload] = []
            try forEachPayload(state, entity: nil, range: nil, after: position ?? 0) { result.append($0) }
            return result
        }
    }

    private func transaction(_ payload: LogPayload) -> LogTransaction {
        var changes: [HistoryChange] = []
        for (index, row) in payload.rows.enumerated() {
            guard let entity = schema.entity(named: row.entity), let key = row.values["id"] else { continue }
            var time: Date?
            if let attribute = timestampAttributes[row.entity], case .date(let date)? = row.values[attribute] { time = date }
            changes.append(entity.modelType.logInsert(
                PersistentIdentifier(entityName: row.entity, primaryKey: key), change: Int64(index),
                transaction: payload.transactionNumber, time: time))
        }
        return LogTransaction(
            transactionIdentifier: payload.transactionNumber,
            token: LogToken(storeIdentifier: identifier, transactionNumber: payload.transactionNumber),
            author: payload.author, timestamp: payload.timestamp, storeIdentifier: identifier,
            bundleIdentifier: payload.bundleIdentifier, processIdentifier: payload.processIdentifier, changes: changes)
    }

    private func record(_ payload: LogPayload) -> HistoryRecord {
        HistoryRecord(
            transactionNumber: payload.transactionNumber, author: payload.author, timestamp: payload.timestamp,
            bundleIdentifier: payload.bundleIdentifier, processIdentifier: payload.processIdentifier,
            changes: payload.rows.compactMap { row in
                row.values["id"].map { HistoryRecord.Change(kind: .insert, entityName: row.entity, primaryKey: $0) }
            })
    }

    private func position(of token: LogToken?) throws -> Int64? {
        guard let token else { return nil }
        guard token.storeIdentifier == identifier else {
            throw HistoryError(.foreignToken, "The history token belongs to store \(token.storeIdentifier), not to log \(identifier).")
        }
        return token.transactionNumber
    }

    private func position(of token: DefaultHistoryToken?) throws -> Int64? {
        guard let token else { return nil }
        guard let position = token.positions[identifier] else {
            throw HistoryError(.foreignToken,
                "The history token belongs to store(s) \(token.positions.keys.sorted().joined(separator: ", ")), not to log \(identifier).")
        }
        return position
    }

    public func fetchHistory(_ descriptor: HistoryDescriptor<LogTransaction>) throws -> [LogTransaction] {
        try descriptor.apply(to: payloads(after: position(of: descriptor.after)).map(transaction))
    }

    public func deleteHistory(_ descriptor: HistoryDescriptor<LogTransaction>) throws {
        let selected = Set(try fetchHistory(descriptor).map(\.transactionIdentifier))
        try dropLeadingSegments(in: selected)
    }

    public func currentHistoryToken() throws -> LogToken? {
        try read { $0.lastTransaction == 0 ? nil : LogToken(storeIdentifier: identifier, transactionNumber: $0.lastTransaction) }
    }

    /// Drops, oldest first, every segment all of whose transactions are in `selected`.
    private func dropLeadingSegments(in selected: Set<Int64>) throws {
        guard !selected.isEmpty else { return }
        try write { state in
            var dropped = false
            while let oldest = state.segments.first, !oldest.isEmpty,
                  (oldest.first...oldest.last).allSatisfy({ selected.contains($0) }) {
                if !state.sealed.contains(oldest.first) { try state.seal(0, files: files) }
                try state.dropOldest(files: files)
                dropped = true
            }
            if dropped { try state.syncDirectory(files) }
        }
    }

    // MARK: DefaultHistoryBridging

    public func fetchDefaultHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try descriptor.apply(to: payloads(after: position(of: descriptor.after)).map {
            DefaultHistoryTransaction(record: record($0), storeIdentifier: identifier, schema: schema)
        })
    }

    public func deleteDefaultHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try dropLeadingSegments(in: Set(try fetchDefaultHistory(descriptor).map(\.transactionIdentifier)))
    }

    public func currentDefaultHistoryToken() throws -> DefaultHistoryToken? {
        try currentHistoryToken().map { DefaultHistoryToken(storeIdentifier: $0.storeIdentifier, transactionNumber: $0.transactionNumber) }
    }
}
