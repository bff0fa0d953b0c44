import StoreProtocol

extension SnapshotTable {
    /// The rows of the models that `fetched` name through their relationships, and of the models
    /// those name in turn, that this table holds: what a store sends along in
    /// `DataStoreFetchResult/relatedSnapshots` for a request with
    /// `DataStoreFetchRequest/includesRelatedSnapshots`, so that a context loading the
    /// relationships of the fetched models reads no row by key again. The fetched rows
    /// themselves are left out, and so are references to rows the table does not hold (another
    /// store's entity, a model deleted with `noAction`): the context loads or drops those itself.
    /// - Complexity: O(*k*) hashed lookups for the *k* references of the fetched and related rows.
    public func relatedSnapshots(of fetched: [DefaultSnapshot]) -> [PersistentIdentifier: DefaultSnapshot] {
        var related: [PersistentIdentifier: DefaultSnapshot] = [:]
        var visited = Set<PersistentIdentifier>(minimumCapacity: fetched.count)
        for snapshot in fetched { visited.insert(snapshot.persistentIdentifier) }
        var level = fetched
        // Rows come in runs of one entity: its relationships are looked up once per run.
        var entityName = ""
        var relationships: [Schema.Relationship] = []
        while !level.isEmpty {
            var next: [DefaultSnapshot] = []
            func follow(_ identifier: PersistentIdentifier) {
                guard visited.insert(identifier).inserted, let row = self.snapshot(for: identifier) else { return }
                related[identifier] = row
                next.append(row)
            }
            for snapshot in level {
                let name = snapshot.persistentIdentifier.entityName
                if name != entityName {
                    entityName = name
                    relationships = schema.entity(named: name)?.relationships ?? []
                }
                for relationship in relationships {
                    // The stored keys as they are (`identifiers(in:)` would make a list of them per row).
                    relationship.forEachIdentifier(in: snapshot.values, follow)
                }
            }
            level = next
        }
        return related
    }
}
