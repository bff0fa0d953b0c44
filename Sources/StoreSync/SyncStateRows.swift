import DataStores

/// Reads and writes the sync models' rows of one store as snapshots.
enum SyncStateRows {
    /// The entity names of ``Replicator/models``: never synced, never counted.
    static let entityNames: Set<String> = Set(Replicator.models.map { $0.entityName })

    static func replicaID() -> PersistentIdentifier {
        PersistentIdentifier(entityName: SyncReplicaState.entityName, primaryKey: .string("replica"))
    }

    static func originID(_ origin: String) -> PersistentIdentifier {
        PersistentIdentifier(entityName: SyncAppliedOrigin.entityName, primaryKey: .string(origin))
    }

    static func pullPositionID(_ remote: String) -> PersistentIdentifier {
        PersistentIdentifier(entityName: SyncPullPosition.entityName, primaryKey: .string(remote))
    }

    static func clockRecordID(_ model: PersistentIdentifier) -> PersistentIdentifier {
        PersistentIdentifier(entityName: SyncClockRecord.entityName,
                             primaryKey: .string(model.entityName + "/" + ValueDigest.canonicalJSON(model.primaryKey)))
    }

    /// The model whose clock record `id` identifies (the inverse of ``clockRecordID(_:)``); `nil`
    /// when `id` is not a clock record's.
    static func model(ofClockRecord id: PersistentIdentifier) -> PersistentIdentifier? {
        guard id.entityName == SyncClockRecord.entityName, case .string(let text) = id.primaryKey, let slash = text.firstIndex(of: "/"),
              let key = try? ValueDigest.value(fromCanonicalJSON: String(text[text.index(after: slash)...])) else { return nil }
        return PersistentIdentifier(entityName: String(text[..<slash]), primaryKey: key)
    }

    // MARK: The replica state

    struct ReplicaState: Sendable, Equatable {
        var replicaID: String
        var clockMilliseconds: Int64
        var clockCounter: Int64
        var stampedThrough: Int64
    }

    static func replicaState(in store: SyncStore) throws -> ReplicaState? {
        guard let row = try store.row(replicaID()) else { return nil }
        guard case .string(let replica)? = row["replicaID"], !replica.isEmpty, case let milliseconds?? = row["clockMilliseconds"].map(int),
              case let counter?? = row["clockCounter"].map(int), case let stamped?? = row["stampedThrough"].map(int) else {
            throw SyncError(.corruptSyncState, "The SyncReplicaState row of store \(store.identifier) lacks a value (or an empty replica ID) or holds one "
                + "of another type; it was written by another version or damaged.")
        }
        return ReplicaState(replicaID: replica, clockMilliseconds: milliseconds, clockCounter: counter, stampedThrough: stamped)
    }

    static func write(_ state: ReplicaState, into save: inout SyncSave) {
        save.insert(replicaID(), [
            "id": .string("replica"), "replicaID": .string(state.replicaID), "clockMilliseconds": .int(state.clockMilliseconds),
            "clockCounter": .int(state.clockCounter), "stampedThrough": .int(state.stampedThrough),
        ])
    }

    // MARK: Positions

    /// The last transaction of `origin` applied to `store`, 0 for none.
    static func appliedOrigin(_ origin: String, in store: SyncStore) throws -> Int64 {
        try position(originID(origin), in: store)
    }

    static func writeAppliedOrigin(_ origin: String, _ transaction: Int64, into save: inout SyncSave) {
        save.insert(originID(origin), ["id": .string(origin), "lastTransaction": .int(transaction)])
    }

    /// The last transaction of `remote` that `store` read, 0 for none.
    static func pullPosition(of remote: String, in store: SyncStore) throws -> Int64 {
        try position(pullPositionID(remote), in: store)
    }

    static func writePullPosition(of remote: String, _ transaction: Int64, into save: inout SyncSave) {
        save.insert(pullPositionID(remote), ["id": .string(remote), "lastTransaction": .int(transaction)])
    }

    private static func position(_ id: PersistentIdentifier, in store: SyncStore) throws -> Int64 {
        guard let row = try store.row(id) else { return 0 }
        guard case let value?? = row["lastTransaction"].map(int) else {
            throw SyncError(.corruptSyncState, "The sync row \(id) of store \(store.identifier) holds no transaction number.")
        }
        return value
    }

    // MARK: Clock records

    static func clocks(of model: PersistentIdentifier, in store: SyncStore) throws -> ModelClocks? {
        guard let row = try store.row(clockRecordID(model)) else { return nil }
        guard case .string(let text)? = row["clocks"] else {
            throw SyncError(.corruptSyncState, "The SyncClockRecord of \(model) in store \(store.identifier) holds no clocks.")
        }
        return try ModelClocks.decoded(text)
    }

    /// Every clock record of `store`, by model.
    static func allClocks(in store: SyncStore) throws -> [PersistentIdentifier: ModelClocks] {
        var result: [PersistentIdentifier: ModelClocks] = [:]
        for (id, row) in try store.rows(of: SyncClockRecord.entityName) {
            guard case .string(let entity)? = row["entityName"], case .string(let key)? = row["primaryKey"],
                  case .string(let text)? = row["clocks"] else {
                throw SyncError(.corruptSyncState, "The SyncClockRecord \(id) of store \(store.identifier) lacks a value.")
            }
            let primaryKey: SnapshotValue
            do { primaryKey = try ValueDigest.value(fromCanonicalJSON: key) } catch {
                throw SyncError(.corruptSyncState, "The SyncClockRecord \(id) of store \(store.identifier) names no primary key.")
            }
            result[PersistentIdentifier(entityName: entity, primaryKey: primaryKey)] = try ModelClocks.decoded(text)
        }
        return result
    }

    static func write(_ clocks: ModelClocks, of model: PersistentIdentifier, into save: inout SyncSave) throws {
        let key = ValueDigest.canonicalJSON(model.primaryKey)
        save.insert(clockRecordID(model), [
            "id": .string(model.entityName + "/" + key), "entityName": .string(model.entityName),
            "primaryKey": .string(key), "clocks": .string(try clocks.encoded()),
        ])
    }

    private static func int(_ value: SnapshotValue) -> Int64? {
        switch value {
        case .int(let value): return value
        case .double(let value): return Int64(exactly: value)
        default: return nil
        }
    }
}
