import Foundation
import StoreProtocol

/// One schema migration of the log, as its identity file records it: the lightweight changes,
/// which apply to every record up to `throughTransaction` (the last one when it was migrated).
///
/// A log never rewrites a record: a migration is this entry and the new schema in `store.json`,
/// written in one atomic replace, and reads apply the changes to the records before it.
struct LogMigration: Codable, Equatable, Sendable {
    var throughTransaction: Int64
    var migration: RowMigration
}

/// The recorded migrations as reads apply them: a record of transaction `t` gets every migration
/// whose `throughTransaction` is `t` or later, oldest first (a later one names things as the
/// earlier one left them), so a record written before two migrations gets both, one written
/// between them the second only.
///
/// Besides the records, reads use what the log keeps beside them under the names they were
/// written with: the entity counts of a segment (to skip it, to count without reading) and the
/// identifier hashes (to refuse an existing id). For one segment, `Segment` tells what each
/// stored entity name reads as.
struct LogMigrations: Sendable {
    /// Ascending (each migration records the last transaction then, and transactions only grow).
    private let throughs: [Int64]
    /// `suffixes[k]`: migrations `k…` as one (their changes in order); the last is empty.
    private let suffixes: [RowMigration]

    init(_ migrations: [LogMigration]) {
        throughs = migrations.map(\.throughTransaction)
        var suffixes = [RowMigration([])]
        for entry in migrations.reversed() { suffixes.append(RowMigration(entry.migration.changes + suffixes[suffixes.count - 1].changes)) }
        self.suffixes = suffixes.reversed()
    }

    var isEmpty: Bool { throughs.isEmpty }

    /// The index of the first migration that applies to a record of `transaction`
    /// (`throughs.count`: none).
    private func start(_ transaction: Int64) -> Int {
        throughs.firstIndex { $0 >= transaction } ?? throughs.count
    }

    /// `payload`'s rows as the recorded schema names them; rows of a removed entity are left out.
    /// - Complexity: O(rows × changes) for a record written before a migration, O(1) after.
    func migrate(_ payload: LogPayload) -> LogPayload {
        let migration = suffixes[start(payload.transactionNumber)]
        guard !migration.isEmpty else { return payload }
        var payload = payload
        payload.rows = payload.rows.compactMap { row in
            migration.migrate(entity: row.entity, values: row.values).map { LogPayload.Row(entity: $0.entity, values: $0.values) }
        }
        return payload
    }

    /// What a segment's stored entity names read as.
    func segment(_ info: SegmentInfo) -> Segment {
        // Migration `k` starts to apply to transactions in (throughs[k - 1], throughs[k]].
        let starts = (0...throughs.count).filter { k in
            let lower = k == 0 ? Int64.min : throughs[k - 1]
            let upper = k == throughs.count ? Int64.max : throughs[k]
            return lower < upper && lower < info.last && upper >= info.first
        }
        let migrations = starts.map { suffixes[$0] }
        // The empty migration stays in the list: the records after the last migration keep their names.
        return Segment(info: info, migrations: migrations.allSatisfy(\.isEmpty) ? [] : migrations)
    }

    /// One segment's entity names, stored and read.
    struct Segment {
        let info: SegmentInfo
        /// The migrations some record of the segment gets (an empty one for records after the
        /// last); empty when no record gets any.
        let migrations: [RowMigration]

        /// The names rows stored as `entity` read as (`nil`: removed), one for each migration
        /// some record of the segment gets (more than one when a migration came in its middle).
        private func names(of entity: String) -> Set<String?> {
            migrations.isEmpty ? [entity] : Set(migrations.map { $0.entityName(entity) })
        }

        /// Whether the segment may hold rows that read as `entity`.
        func mayHold(_ entity: String) -> Bool {
            guard !migrations.isEmpty else { return info.counts[entity, default: 0] > 0 }
            return info.counts.contains { $0.value > 0 && names(of: $0.key).contains(entity) }
        }

        /// How many rows read as `entity`; `nil` when the counts cannot tell (a migration in the
        /// middle of the segment renamed or removed the entity of some rows, not of others).
        func count(of entity: String) -> Int? {
            guard !migrations.isEmpty else { return info.counts[entity, default: 0] }
            var total = 0
            for (stored, count) in info.counts where count > 0 {
                let names = names(of: stored)
                guard names.contains(entity) else { continue }
                guard names.count == 1 else { return nil }
                total += count
            }
            return total
        }

        /// The stored entity names whose rows may read as `entity`: the names its records'
        /// identifier hashes were made with.
        func storedNames(of entity: String) -> [String] {
            guard !migrations.isEmpty else { return [entity] }
            return info.counts.keys.filter { names(of: $0).contains(entity) }.sorted()
        }
    }
}

extension LogMeta {
    /// The recorded schema (`StoredSchema/unrecorded` for a log written before logs recorded one).
    var recordedSchema: StoredSchema { schema ?? .unrecorded }

    /// Whether the log's records were written with a schema that does not hold `schema`: they
    /// must not be read or written as `schema`'s until the log is migrated.
    func needsMigration(to opening: StoredSchema) -> Bool {
        schema?.needsMigration(toHold: opening) ?? false
    }

    /// Records a migration to `schema`: `migration` applies to records up to `lastTransaction`.
    mutating func recordMigration(_ migration: RowMigration, to schema: StoredSchema, lastTransaction: Int64) {
        // An added attribute without a default changes no row (it reads as nil): left out, so
        // that reads of old records do not pay for it.
        let migration = RowMigration(migration.changes.filter {
            if case .addAttribute(_, _, nil) = $0 { false } else { true }
        })
        if !migration.isEmpty, lastTransaction > expiredThrough {
            migrations = (migrations ?? []) + [LogMigration(throughTransaction: lastTransaction, migration: migration)]
        }
        if let sources = timestamps { timestamps = Self.migratedTimeSources(sources, by: migration) }
        self.schema = schema
    }

    /// The time sources as the migrated schema names them. The times beside a record were the
    /// values of its timestamp attribute, which a rename keeps: a renamed entity or attribute
    /// keeps its source, so range reads still skip what is out of range. A source whose
    /// attribute is removed (or added anew, with other values) is dropped: reads of that entity
    /// read every record until a writer records a new one.
    static func migratedTimeSources(_ sources: [String: LogTimeSource], by migration: RowMigration) -> [String: LogTimeSource] {
        var sources = sources
        for change in migration.changes {
            switch change {
            case .renameEntity(let from, let to):
                sources[to] = sources.removeValue(forKey: from)
            case .removeEntity(let name):
                sources[name] = nil
            case .renameAttribute(let entity, let from, let to) where sources[entity]?.attribute == from:
                sources[entity]?.attribute = to
            case .removeAttribute(let entity, let name) where sources[entity]?.attribute == name,
                 .addAttribute(let entity, let name, _) where sources[entity]?.attribute == name:
                sources[entity] = nil
            default:
                break
            }
        }
        return sources
    }
}
