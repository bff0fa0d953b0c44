import Foundation
import StoreProtocol
import StoreBuildingBlocks

// Reading: the records of the segments a read needs, and the fetches made of them.
extension LogStore {
    /// Calls `body` with each record of the segments that may hold `entity` rows in `range`.
    /// Only segments starting at transaction `rangeFrom` or later are skipped (or their records)
    /// by time: before it, the times beside the records mean something else (`LogTimeSource`).
    func forEachPayload(
        _ state: LogState, entity: String?, range wanted: ClosedRange<Double>?, rangeFrom: Int64 = 0, after transaction: Int64 = 0,
        _ body: (LogPayload) throws -> Void
    ) throws {
        // Records the identity file says were dropped are gone, even while their segment is still
        // there (a drop cut short, which the next writer finishes).
        let transaction = max(transaction, state.expiredThrough)
        // Records written before a migration are read as the recorded schema names things: here,
        // where every read decodes them, so that no read sees the names they were written with.
        let migrations = state.migrations
        let body = migrations.isEmpty ? body : { try body(migrations.migrate($0)) }
        for info in state.segments where !info.isEmpty && info.last > transaction {
            let range = info.first >= rangeFrom ? wanted : nil
            guard info.overlaps(range) else { continue }
            if let entity, !migrations.segment(info).mayHold(entity) { continue }
            let path = files.segment(info.first)
            var reader = try SegmentReader(path: path, bytes: info.bytes)
            countRead(segments: 1)
            defer { countRead(bytes: reader.bytesRead) }
            // A range read reads the headers, then the records in range; a damaged header makes it
            // read the whole segment below, which finds and names the damage.
            if let range, let records = try reader.records(overlapping: range, expected: Int(info.last - info.first + 1)) {
                try reader.read(records, skipDamaged: configuration.skipsDamagedRecords) { record, bytes in
                    let payload = try Frame.decode(payload: bytes, at: record.offset, path: path)
                    countRead(records: 1)
                    if payload.transactionNumber > transaction { try body(payload) }
                }
                continue
            }
            let data = try reader.readAll()
            // Only bytes known to hold whole records are read, so a partial record here is damage.
            // A range read checks the checksum of the records it decodes only: the ones it skips
            // by their header times would cost more to check than the read itself.
            let (validEnd, torn) = try SegmentScanner.walk(data, path: path, verify: range == nil, skipDamaged: configuration.skipsDamagedRecords) { bytes, record in
                if let range, record.latest < range.lowerBound || record.earliest > range.upperBound { return }
                if range != nil, !Frame.checksumHolds(bytes, offset: record.offset, end: record.payloadRange.upperBound) {
                    if configuration.skipsDamagedRecords { return }
                    throw SegmentReader.checksumMismatch(path, at: record.offset)
                }
                let payload = try Frame.decode(bytes, record, path: path)
                countRead(records: 1)
                if payload.transactionNumber > transaction { try body(payload) }
            }
            if torn || validEnd < data.count {
                throw DataStoreError(.corruptStore,
                    "\(path) is damaged at byte \(validEnd): it was read whole before. Restore the log from a backup; nothing was changed.")
            }
        }
    }

    private func snapshots(of entity: String, in range: ClosedRange<Double>?) throws -> [DefaultSnapshot] {
        try read { state in
            var rows: [DefaultSnapshot] = []
            // Skip by time only where the writers placed records by the attribute the range bounds.
            let from = timestampAttributes[entity].flatMap { state.meta?.skipsByTime(entity, attribute: $0) }
            try forEachPayload(state, entity: entity, range: from == nil ? nil : range, rangeFrom: from ?? 0) { payload in
                for row in payload.rows where row.entity == entity {
                    guard let key = row.values["id"] else { continue }
                    rows.append(DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: entity, primaryKey: key), values: row.values))
                }
            }
            return rows
        }
    }

    // MARK: DataStore fetches

    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let range = timestampAttributes[T.entityName].flatMap { TimeRange.bounds(of: request.query.filter, attribute: $0) }
        let rows = try snapshots(of: T.entityName, in: range)
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: try QueryEvaluator.fetch(request, over: rows))
    }

    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        let descriptor = request.descriptor
        if descriptor.predicate == nil, !descriptor.isPaged, let count = try read({ state -> Int? in
            // Counted from the segments' counts, unless a migration in the middle of a segment
            // renamed or removed some of its rows' entity: then the records are read below.
            let migrations = state.migrations
            var total = 0
            for info in state.segments where info.last > state.expiredThrough {
                guard let count = migrations.segment(info).count(of: T.entityName) else { return nil }
                total += count
            }
            return total
        }) {
            return count
        }
        let range = timestampAttributes[T.entityName].flatMap { TimeRange.bounds(of: request.query.filter, attribute: $0) }
        return try QueryEvaluator.count(request, over: try snapshots(of: T.entityName, in: range))
    }
}
