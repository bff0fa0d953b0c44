import Foundation
import StoreProtocol
import StoreFiles

// Writing: an insert-only save appended as one record, erase, flush, and retention.
extension LogStore {
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        guard request.updated.isEmpty else { throw Self.insertOnly("update \(request.updated[0].persistentIdentifier)") }
        guard request.deleted.isEmpty else { throw Self.insertOnly("delete \(request.deleted[0].persistentIdentifier)") }
        // Looked up once per run of rows of one entity (a save of 1,000 rows is one run): a
        // lookup hashes the name, about 430 instructions a row (callgrind).
        var known: String?
        for snapshot in request.inserted {
            let entity = snapshot.persistentIdentifier.entityName
            if entity == known { continue }
            guard schema.entity(named: entity) != nil else {
                throw DataStoreError.unsupportedFeature("'\(entity)' is not in the log store's schema (\(schema)).")
            }
            known = entity
        }
        guard !request.inserted.isEmpty else { return DataStoreSaveChangesResult(for: identifier) }
        return try write { state in
            let identifierHashes = try refuseKnownIdentifiers(request.inserted, state)
            let now = Date()
            let payload = LogPayload(
                transactionNumber: state.lastTransaction + 1, author: request.editingState.author, timestamp: now,
                bundleIdentifier: ProcessIdentity.bundleIdentifier, processIdentifier: ProcessIdentity.processIdentifier,
                rows: request.inserted.map { LogPayload.Row(entity: $0.persistentIdentifier.entityName, values: $0.values) })
            var earliest = Double.infinity, latest = -Double.infinity
            // The entity's time attribute, looked up once per run of rows of one entity.
            var runEntity: String?, runAttribute: String?
            for row in payload.rows {
                var time = now.timeIntervalSince1970
                if row.entity != runEntity {
                    runEntity = row.entity
                    runAttribute = timestampAttributes[row.entity]
                }
                if let attribute = runAttribute, case .date(let date)? = row.values[attribute] {
                    time = date.timeIntervalSince1970
                }
                earliest = min(earliest, time)
                latest = max(latest, time)
            }
            let frame = try Frame.encode(payload, earliest: earliest, latest: latest)
            // The times beside this record come from this configuration's attributes: if other
            // writers used others, say so first, or range reads would misread them. A log written
            // before logs recorded their schema records this one's (its records are of it now).
            if let meta = state.meta {
                try state.recordBeforeAppending(
                    timeSources: meta.timeSources(for: schema.entities.map(\.name), attributes: timestampAttributes, next: payload.transactionNumber),
                    schema: schema, files: files)
            }
            // A sealed segment is never appended to, even when the record would fit: its index
            // says how long it is. It is the last one when a crash came between its seal and the
            // first append to the next segment.
            if let last = state.segments.last, !last.isEmpty,
               state.sealed.contains(last.first) || last.bytes + Int64(frame.count) > configuration.segmentSize {
                if !state.sealed.contains(last.first) { try state.seal(state.segments.count - 1, files: files) }
                state.segments.append(SegmentInfo(first: payload.transactionNumber))
            } else if state.segments.isEmpty {
                state.segments.append(SegmentInfo(first: payload.transactionNumber))
            }
            var info = state.segments[state.segments.count - 1]
            let sync: Bool
            switch configuration.durability {
            case .everySave: sync = true
            case .periodic(let interval): sync = now.timeIntervalSince(state.lastSync) >= interval
            }
            try FileIO.appendDurably(frame, to: files.segment(info.first), expectedLength: info.bytes, sync: sync)
            if sync { state.lastSync = now }
            info.add(payload, record: Frame.Record(offset: Int(info.bytes), length: frame.count, earliest: earliest,
                                                  latest: latest, payloadRange: 0..<0), identifierHashes: identifierHashes)
            state.segments[state.segments.count - 1] = info
            state.lastTransaction = payload.transactionNumber
            // The save is durable; a retention step that fails is retried at the next save.
            try? applyRetention(&state, now: now)
            return DataStoreSaveChangesResult(for: identifier)
        }
    }

    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        throw Self.insertOnly("delete \(T.entityName) records")
    }

    public func erase() throws {
        try write { state in
            // Like dropping segments: the identity file first, then the files. The erase takes a
            // transaction number of its own, dropped with the rest, so that every token taken
            // before it is expired (`HistoryLog.removeAll()` does the same).
            try state.recordDropped(through: state.lastTransaction + 1, files: files)
            state.lastTransaction += 1
            while !state.segments.isEmpty { try state.removeOldestSegment(files: files) }
            // The unlinks reach the disk before erase returns: lost, they would bring segments back.
            try state.syncDirectory(files)
        }
    }

    /// Flushes saves not yet on disk (with ``LogDurability/periodic(_:)``).
    public func flush() throws {
        try write { state in
            if let last = state.segments.last { try FileIO.sync(files.segment(last.first)) }
            state.lastSync = Date()
        }
    }

    private func applyRetention(_ state: inout LogState, now: Date) throws {
        let retention = configuration.historyRetention
        var dropped = false
        while state.segments.count > 1, let oldest = state.segments.first {
            let tooOld = retention.maximumAge.map { oldest.newestSave < now.timeIntervalSince1970 - $0 } ?? false
            let tooBig = retention.maximumBytes.map { state.totalBytes > Int64($0) } ?? false
            guard tooOld || tooBig else { break }
            if !state.sealed.contains(oldest.first) { try state.seal(0, files: files) }
            try state.dropOldest(files: files)
            dropped = true
        }
        if dropped { try state.syncDirectory(files) }
    }

    // MARK: Identifiers

    /// Refuses inserts whose identifier is already in the log, or twice in the save.
    ///
    /// Each segment knows its records' identifier hashes (the segment being written in memory, a
    /// sealed one as a Bloom filter in its index), so a new identifier costs no read; a hash that
    /// matches is confirmed against the records of the segments that may hold it.
    /// - Returns: Each insert's identifier hash (`nil` without an id), for the segment's record of them.
    private func refuseKnownIdentifiers(_ inserted: [DefaultSnapshot], _ state: LogState) throws -> [UInt64?] {
        // Equal identifiers have equal hashes (`IdentifierHash`): an insert whose hash no other
        // insert of this save has is new in it, and only one whose hash repeats is compared with
        // the earlier ones. The repeats are found by sorting the hashes, not through a Set (a
        // hashed insert per row, about 360 instructions, callgrind).
        let identifierHashes: [UInt64?] = inserted.map { snapshot in
            snapshot.values["id"].map { IdentifierHash.of(snapshot.persistentIdentifier.entityName, $0) }
        }
        var repeated = Set<UInt64>()
        var previous: UInt64?
        for hash in identifierHashes.compactMap({ $0 }).sorted() {
            if hash == previous { repeated.insert(hash) }
            previous = hash
        }
        var suspects = Set<PersistentIdentifier>()
        var segments = Set<Int64>()
        let live = state.segments.filter { !$0.isEmpty && $0.last > state.expiredThrough }
        // A segment's hashes were made with the entity names its records were written with: a
        // record of an entity renamed since is looked for under its old name. Without
        // migrations, that is the name itself (`nil` here: nothing to work out per segment).
        let migrations = state.migrations
        // Segment -> entity -> the stored names whose rows read as it.
        let storedNames: [[String: [String]]]? = migrations.isEmpty ? nil : {
            let entities = Set(inserted.map(\.persistentIdentifier.entityName))
            return live.map { info in
                let segment = migrations.segment(info)
                return Dictionary(uniqueKeysWithValues: entities.map { ($0, segment.storedNames(of: $0)) })
            }
        }()
        for (index, snapshot) in inserted.enumerated() {
            let entity = snapshot.persistentIdentifier.entityName
            guard let hash = identifierHashes[index] else { continue }   // no id
            // Looked up and made only for an id that may be known (most are not): a hash is
            // made only for a row with an id, so the id is there.
            var key: SnapshotValue { snapshot.values["id"] ?? .null }
            var identifier: PersistentIdentifier { PersistentIdentifier(entityName: entity, primaryKey: key) }
            if !repeated.isEmpty, repeated.contains(hash) {
                for earlier in inserted[..<index] where earlier.persistentIdentifier.entityName == entity {
                    if let earlierKey = earlier.values["id"], PersistentIdentifier(entityName: entity, primaryKey: earlierKey) == identifier {
                        throw Self.insertOnly("insert \(identifier) twice in one save")
                    }
                }
            }
            let holders: [SegmentInfo]
            if let storedNames {
                var hashes = [entity: hash]
                for name in Set(storedNames.flatMap { $0[entity] ?? [] }) where hashes[name] == nil { hashes[name] = IdentifierHash.of(name, key) }
                holders = live.indices.filter { index in
                    storedNames[index][entity, default: []].contains { hashes[$0].map(live[index].mayHold) ?? true }
                }.map { live[$0] }
            } else {
                // Most ids are in no segment: no array is made for them.
                guard live.contains(where: { $0.mayHold(hash) }) else { continue }
                holders = live.filter { $0.mayHold(hash) }
            }
            guard !holders.isEmpty else { continue }
            suspects.insert(identifier)
            segments.formUnion(holders.map(\.first))
        }
        guard !suspects.isEmpty else { return identifierHashes }
        var view = state
        view.segments = state.segments.filter { segments.contains($0.first) }
        var found: PersistentIdentifier?
        try forEachPayload(view, entity: nil, range: nil) { payload in
            for row in payload.rows where found == nil {
                guard let key = row.values["id"] else { continue }
                let identifier = PersistentIdentifier(entityName: row.entity, primaryKey: key)
                if suspects.contains(identifier) { found = identifier }
            }
        }
        if let found {
            throw Self.insertOnly("update \(found), which is already in the log (an insert of an existing id is an update)")
        }
        return identifierHashes
    }
}
