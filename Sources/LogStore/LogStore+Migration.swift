import Foundation
import StoreProtocol

// Migration: the schema the records are read as, recorded without rewriting a record.
extension LogStore {
    /// The schema the log's identity file records, as of the last read: the one its records are
    /// read as. `StoredSchema/unrecorded` for a log written before logs recorded their schema
    /// (it records this store's schema with its next save); this store's schema when there is
    /// no log yet (a read-only open of an empty directory: nothing to migrate).
    ///
    /// Cost: none; the files are not read.
    public var recordedSchema: StoredSchema? {
        // Nothing here throws: the state is read as it is, without the files.
        try? state.read(isCurrent: { _ in true }, catchUp: { _ in }) { state in
            state.meta.map(\.recordedSchema) ?? storedSchema
        }
    }

    /// Migrates the log to `request.schema` without rewriting a record: the identity file
    /// records the new schema and the request's lightweight changes, and every read applies
    /// them to the records written before (renamed entities and attributes, defaults, removed
    /// attributes and entities dropped); history written before reads in the new names too. The
    /// identity file is replaced atomically, the migration's only write: a crash at any instant
    /// leaves the log as it was or as migrated. Other instances that have the log open with the
    /// old schema get `DataStoreError/Code/incompatibleSchema` from their next read or save.
    ///
    /// A log does not enforce unique constraints: one added by the migration is recorded in the
    /// schema only, and stored records are not checked against it.
    ///
    /// Cost: O(1) in the size of the log: one flush of the segment being written and one
    /// rewrite of the small identity file. Reads of records written before the migration then
    /// pay O(changes) per row.
    /// - Throws: `DataStoreError/Code/unsupportedFeature` when the request has a custom
    ///   `MigrationStage` (an insert-only log cannot rewrite its records with the stage's
    ///   changes); `DataStoreError/Code/readOnly` for a read-only configuration;
    ///   `DataStoreError/Code/incompatibleSchema` when another process migrated the log to
    ///   another schema meanwhile; `DataStoreError/Code/corruptStore` or
    ///   `DataStoreError/Code/ioFailure` from reading or writing the files. Nothing is changed
    ///   then, except when only the flush of the directory after the replace fails: the log may
    ///   then read as migrated (every instance sees it so), never as anything between.
    public func migrate(_ request: DataStoreMigrationRequest) throws {
        guard !request.hasCustomStages else {
            throw DataStoreError.unsupportedFeature(
                "The log store \(files.directory) cannot run a custom MigrationStage: an insert-only log cannot rewrite its records "
                + "with what the stage's code changes. Migrate it with lightweight changes only (a plan without custom stages, or "
                + "originalName and defaultValue attribute options), or keep these models in a store that supports updates. "
                + "Nothing was changed.")
        }
        guard configuration.allowsSave else {
            throw DataStoreError(.readOnly,
                "The log store \(files.directory) needs migrating to this container's schema but is read-only (allowsSave is false). "
                + "Open it once with saving allowed; nothing was changed.")
        }
        try write(migrating: true) { state in
            guard let recorded = state.meta?.recordedSchema else { return }
            if !recorded.isUnrecorded, recorded.holds(storedSchema) { return }   // another process did it
            guard recorded.isUnrecorded || recorded.hasSameContent(as: request.recordedSchema) else {
                throw DataStoreError(.incompatibleSchema,
                    "The log store \(files.directory) was migrated to another schema by another process while this one opened it. "
                    + "Open it again; nothing was changed.")
            }
            try state.recordMigration(request, files: files)
        }
    }
}
