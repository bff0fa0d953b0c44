import DataStores

/// The check a ``Replicator`` makes before it reads or writes anything: both sides hold the sync
/// models, and the same app models (names, attributes, relationships with their delete rules,
/// values preserved on deletion, unique constraints) at the
/// same schema version.
enum SchemaCheck {
    /// - Parameter localHoldsSyncModels: `false` for a push-only source (a log store), which holds
    ///   no sync state: its schema need not list the sync models.
    /// - Throws: ``SyncError/Code/missingSyncModels`` naming the side and model;
    ///   ``SyncError/Code/schemaMismatch`` naming the first difference.
    static func check(local: Schema, remote: Schema, localHoldsSyncModels: Bool = true) throws {
        for (side, schema) in [("local", local), ("remote", remote)] where side == "remote" || localHoldsSyncModels {
            if let missing = Replicator.models.first(where: { schema.entity(named: $0.entityName) == nil }) {
                throw SyncError(.missingSyncModels,
                    "The \(side) container's schema lacks \(missing.entityName), one of Replicator.models: list them beside the app's "
                    + "models (Schema([Trip.self, …] + Replicator.models)) on both sides. Nothing was read or written.")
            }
        }
        if local.version != remote.version {
            throw mismatch("the local schema is version \(local.version.map { "\($0)" } ?? "(none)"), the remote one "
                + "\(remote.version.map { "\($0)" } ?? "(none)")")
        }
        let synced = SyncStateRows.entityNames
        let localNames = local.entities.map(\.name).filter { !synced.contains($0) }
        let remoteNames = remote.entities.map(\.name).filter { !synced.contains($0) }
        // In the local schema's order, so that the first difference named is the first one there.
        for name in localNames {
            guard let ours = local.entity(named: name), let theirs = remote.entity(named: name) else {
                throw mismatch("the local schema has the entity \(name), the remote one does not")
            }
            if let difference = difference(ours, theirs) { throw mismatch("\(name): \(difference)") }
        }
        if let only = remoteNames.first(where: { local.entity(named: $0) == nil }) {
            throw mismatch("the remote schema has the entity \(only), the local one does not")
        }
    }

    private static func difference(_ ours: Schema.Entity, _ theirs: Schema.Entity) -> String? {
        let ourAttributes = Dictionary(ours.attributes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let theirAttributes = Dictionary(theirs.attributes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for attribute in ours.attributes {
            guard let other = theirAttributes[attribute.name] else { return "the attribute \(attribute.name) is only in the local schema" }
            if other.valueType != attribute.valueType || other.isOptional != attribute.isOptional {
                return "the attribute \(attribute.name) is \(describe(attribute)) locally and \(describe(other)) remotely"
            }
        }
        if let only = theirs.attributes.first(where: { ourAttributes[$0.name] == nil }) {
            return "the attribute \(only.name) is only in the remote schema"
        }
        let theirRelationships = Dictionary(theirs.relationships.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for relationship in ours.relationships {
            guard let other = theirRelationships[relationship.name] else {
                return "the relationship \(relationship.name) is only in the local schema"
            }
            if other.destination != relationship.destination || other.isToMany != relationship.isToMany || other.inverse != relationship.inverse {
                return "the relationship is \(relationship) locally and \(other) remotely"
            }
            // A deletion applied on both sides must remove the same models.
            if other.deleteRule != relationship.deleteRule {
                return "the relationship \(relationship.name) has the delete rule \(relationship.deleteRule) locally and "
                    + "\(other.deleteRule) remotely"
            }
        }
        if let only = theirs.relationships.first(where: { relationship in !ours.relationships.contains { $0.name == relationship.name } }) {
            return "the relationship \(only.name) is only in the remote schema"
        }
        // A deletion's tombstone must keep the same values on both sides.
        if ours.preservedOnDeletion != theirs.preservedOnDeletion {
            return "the values preserved on deletion are \(ours.preservedOnDeletion.sorted()) locally and "
                + "\(theirs.preservedOnDeletion.sorted()) remotely"
        }
        if Set(ours.uniqueConstraints) != Set(theirs.uniqueConstraints) {
            return "the unique constraints are \(ours.uniqueConstraints) locally and \(theirs.uniqueConstraints) remotely"
        }
        return nil
    }

    private static func describe(_ attribute: Schema.Attribute) -> String {
        attribute.valueType + (attribute.isOptional ? "?" : "")
    }

    private static func mismatch(_ difference: String) -> SyncError {
        SyncError(.schemaMismatch, "The local and remote schemas differ: \(difference). Both sides must hold the same models at the "
            + "same version (migrate the older side first). Nothing was read or written.")
    }
}
