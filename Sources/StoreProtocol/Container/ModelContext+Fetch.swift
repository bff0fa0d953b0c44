import Foundation

extension ModelContext {
    /// The models a descriptor selects. Fetched models join the identity map: fetching a model
    /// twice gives the same instance. A registered model without unsaved changes takes the
    /// stored values (another context's or process's save); one with unsaved changes keeps them.
    ///
    /// With `includePendingChanges` (the default) and unsaved changes to `T`, the context reads
    /// every `T` from the store and filters in memory, so that unsaved values count.
    /// - Throws: ``DataStoreError`` (unknown entity, undecodable snapshot, invalid predicate) or
    ///   what the store throws.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let store = try container.stores[container.storeIndex(for: T.self)]
        // Looked up once for the fetch, not once per question and per model.
        let entity = container.schema.entity(for: T.self)
        let followsRelationships = mayFollowRelationships(descriptor, entity: entity)
        let pending = try descriptor.includePendingChanges && hasPendingChanges(for: T.self)
        guard followsRelationships || pending else {
            // With the related rows the store sends along (ModelContext+Relationships.swift).
            let (snapshots, related) = try fetchSnapshotsAndRelated(descriptor, from: store)
            registrations.reserveCapacity(adding: snapshots.count)
            // A loop, not `map`: in this unspecialized generic function, `map` reads each row
            // through the generic `Collection` witnesses, two heap allocations a row (callgrind).
            var models: [T] = []
            models.reserveCapacity(snapshots.count)
            // The registration class's metadata, looked up once for the fetch: this function is
            // not specialized, and naming `TypedRegistration<T>` per model asked the runtime's
            // metadata cache each time (about 330 instructions a model, callgrind).
            let registrationType = TypedRegistration<T>.self
            if let entity, entity.relationships.isEmpty, registrations.count == 0 {
                for snapshot in snapshots { models.append(try materializeNew(snapshot, entity: entity, as: registrationType)) }
            } else {
                for snapshot in snapshots { models.append(try materialize(snapshot, entity: entity, as: registrationType)) }
            }
            try resolvePendingRelationships(preloaded: related)
            return models
        }
        return try fetchInMemory(descriptor, from: store, countingPendingChanges: pending)
    }

    /// The descriptor evaluated here rather than by the store: with unsaved changes that count
    /// (`countingPendingChanges`: registered instances with their unsaved values, and unsaved
    /// inserts), or with a predicate or sort that may follow relationships, which only models
    /// whose relationships are set can answer. Otherwise stored values decide: a registered
    /// model with unsaved changes is judged by a copy decoded from its stored values (its
    /// relationships the context's instances), and the instance is returned. Either way a
    /// registered model without unsaved changes first takes the stored values.
    private func fetchInMemory<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, from store: any DataStore, countingPendingChanges pending: Bool
    ) throws -> [T] {
        let hasRelationships = container.schema.entity(for: T.self)?.relationships.isEmpty == false
        // `probe` is what the predicate and sort see; `snapshot`, a row to register if returned.
        var candidates: [(model: T, probe: T, snapshot: DefaultSnapshot?)] = []
        var seen = Set<PersistentIdentifier>()
        var storedValues: [(index: Int, snapshot: DefaultSnapshot)] = []
        for snapshot in try fetchSnapshots(FetchDescriptor<T>(), from: store) {
            let id = snapshot.persistentIdentifier
            seen.insert(id)
            if let registration = registrations[id], let model = registration.model as? T {
                // Without unsaved changes, it takes the stored values, as in a fetch the store answers.
                let _: T = try materialize(snapshot)
                if pending {
                    if registration.state != .deleted { candidates.append((model, model, nil)) }
                } else if try registration.state == .deleted || registration.isDirty() {
                    storedValues.append((candidates.count, snapshot))
                    candidates.append((model, model, nil))
                } else {
                    candidates.append((model, model, nil))
                }
            } else if hasRelationships {
                // Registered now, so that its relationships are set before it is judged.
                let model: T = try materialize(snapshot)
                candidates.append((model, model, nil))
            } else {
                let model: T = try SnapshotQuery.materialize(snapshot)
                candidates.append((model, model, snapshot))
            }
        }
        try resolvePendingRelationships()
        for (index, snapshot) in storedValues {
            candidates[index].probe = try storedCopy(of: snapshot)
        }
        if pending {
            for registration in registrations.mayHaveChanged() where registration.state == .inserted {
                guard let model = registration.model as? T, !seen.contains(model.persistentModelID) else { continue }
                candidates.append((model, model, nil))
            }
        }
        if let predicate = descriptor.predicate {
            candidates = try candidates.filter { try SnapshotQuery.matches(predicate, $0.probe) }
        }
        if !descriptor.sortBy.isEmpty {
            let sortBy = descriptor.sortBy
            candidates.sort { SnapshotQuery.inIncreasingOrder(sortBy, $0.probe, $1.probe) }
        }
        return descriptor.page(candidates).map { candidate in
            if let snapshot = candidate.snapshot { register(candidate.model, baseline: snapshot.values) }
            return candidate.model
        }
    }

    /// A detached model with a row's stored values, its relationships set to the context's
    /// instances of the models the row names.
    private func storedCopy<T: PersistentModel>(of snapshot: DefaultSnapshot) throws -> T {
        let copy: T = try SnapshotQuery.materialize(snapshot)
        guard let entity = container.schema.entity(for: T.self) else { return copy }
        for relationship in entity.relationships {
            let members = relationship.identifiers(in: snapshot.values).compactMap { registrations[$0]?.model }
            entity.relationshipAccess[relationship.name]?.setMembers(copy, members)
        }
        return copy
    }

    /// How many models a descriptor selects.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let store = try container.stores[container.storeIndex(for: T.self)]
        if try mayFollowRelationships(descriptor) || descriptor.includePendingChanges && hasPendingChanges(for: T.self) {
            return try fetch(descriptor).count
        }
        func run<S: DataStore>(_ store: S) throws -> Int {
            try store.fetchCount(DataStoreFetchRequest(descriptor: descriptor, editingState: editingState))
        }
        do { return try run(store) } catch let error as DataStoreError
            where error.code == .preferInMemoryFilter || error.code == .preferInMemorySort {
            return try fetchSnapshots(descriptor, from: store).count
        }
    }

    /// The identifiers of the models a descriptor selects.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let store = try container.stores[container.storeIndex(for: T.self)]
        if try mayFollowRelationships(descriptor) || descriptor.includePendingChanges && hasPendingChanges(for: T.self) {
            return try fetch(descriptor).map { $0.persistentModelID }
        }
        func run<S: DataStore>(_ store: S) throws -> [PersistentIdentifier] {
            try store.fetchIdentifiers(DataStoreFetchRequest(descriptor: descriptor, editingState: editingState))
        }
        do { return try run(store) } catch let error as DataStoreError
            where error.code == .preferInMemoryFilter || error.code == .preferInMemorySort {
            return try fetchSnapshots(descriptor, from: store).map { $0.persistentIdentifier }
        }
    }

    /// SwiftData's lazily loaded fetch, which is not available here: a model here cannot load
    /// its values on first access. Use ``fetch(_:)`` for an array of the models, or
    /// ``enumerate(_:batchSize:allowEscapingMutations:_:)`` to walk a large result in batches.
    @available(*, unavailable, message: "a lazily loaded fetch is not available here: use fetch(_:) for an array, or enumerate(_:batchSize:_:) to walk a large result in batches")
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> [T] {
        try fetch(descriptor)
    }

    // MARK: Helpers

    /// Whether the descriptor has a predicate or sort that a store decides on models and that
    /// may read relationships, which only the context sets: such a fetch runs here.
    func mayFollowRelationships<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) -> Bool {
        mayFollowRelationships(descriptor, entity: container.schema.entity(for: T.self))
    }

    /// ``mayFollowRelationships(_:)`` with `T`'s entity already looked up.
    func mayFollowRelationships<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity?) -> Bool {
        entity?.relationships.isEmpty == false && FetchQuery(descriptor).needsModels
    }

    /// Whether the context holds unsaved inserts, deletes or changes of `T`.
    func hasPendingChanges<T: PersistentModel>(for type: T.Type) throws -> Bool {
        // A context that holds no model has none (every insert, delete and change is of a model
        // it holds): a fresh context's fetch skips the look at its touch log.
        guard registrations.count > 0 else { return false }
        return try registrations.mayHaveChanged(inOrder: false).contains { $0.model is T ? try $0.isDirty() : false }
    }

    /// Asks a store, doing in memory what it prefers not to.
    func fetchSnapshots<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, from store: any DataStore) throws -> [DefaultSnapshot] {
        func run<S: DataStore>(_ store: S, _ descriptor: FetchDescriptor<T>) throws -> [DefaultSnapshot] {
            let snapshots = try store.fetch(DataStoreFetchRequest(descriptor: descriptor, editingState: editingState)).fetchedSnapshots
            // The stores of this package answer in DefaultSnapshots: taken as they are, not copied
            // into a new array (a metatype comparison, where a cast would be a runtime call).
            if S.Snapshot.self == DefaultSnapshot.self { return unsafeBitCast(snapshots, to: [DefaultSnapshot].self) }
            return snapshots.map { DefaultSnapshot(persistentIdentifier: $0.persistentIdentifier, values: $0.values) }
        }
        do {
            return try run(store, descriptor)
        } catch let error as DataStoreError where error.code == .preferInMemorySort {
            var filterOnly = descriptor
            filterOnly.sortBy = []
            filterOnly.fetchOffset = nil
            filterOnly.fetchLimit = nil
            var sortOnly = descriptor
            sortOnly.predicate = nil
            return try SnapshotQuery.evaluate(sortOnly, over: fetchSnapshots(filterOnly, from: store))
        } catch let error as DataStoreError where error.code == .preferInMemoryFilter {
            return try SnapshotQuery.evaluate(descriptor, over: run(store, FetchDescriptor<T>()))
        }
    }

    /// The registered instance for a stored snapshot, registering a new one if needed.
    func materialize<T: PersistentModel>(_ snapshot: DefaultSnapshot) throws -> T {
        try materialize(snapshot, entity: container.schema.entity(for: T.self))
    }

    /// ``materialize(_:)`` with `T`'s entity (`container.schema.entity(for: T.self)`) already
    /// looked up: what a fetch calls for each of its rows.
    func materialize<T: PersistentModel>(_ snapshot: DefaultSnapshot, entity: Schema.Entity?) throws -> T {
        try materialize(snapshot, entity: entity, as: TypedRegistration<T>.self)
    }

    /// ``materialize(_:entity:)`` registering a new model as a `registrationType` (which is
    /// `TypedRegistration<T>`, looked up once by a caller that materializes many rows).
    func materialize<T: PersistentModel>(
        _ snapshot: DefaultSnapshot, entity: Schema.Entity?, as registrationType: TypedRegistration<T>.Type
    ) throws -> T {
        if let registration = registrations[snapshot.persistentIdentifier], let model = registration.model as? T {
            if registration.state == .persisted, let baseline = registration.baseline, baseline != snapshot.values,
               try !registration.isDirty() {
                try restore(registration, to: snapshot.values)
                takeStoredValuesIntoUndoCheckpoint(snapshot.persistentIdentifier,
                    changed: snapshot.changedAttributes(from: baseline), stored: snapshot.values)
            }
            return model
        }
        let model: T = try SnapshotQuery.materialize(snapshot)
        register(model, baseline: snapshot.values, entity: entity, as: registrationType)
        return model
    }

    /// A fetched row of an entity without relationships as a model, for a fetch into a context
    /// that held no model when it began: the row is decoded first and registered in one hashed
    /// lookup (``RegistrationTable/registerSettledIfAbsent(_:_:)``), where
    /// ``materialize(_:entity:as:)`` looks for the row's registration, then registers the model.
    ///
    /// The answer is ``materialize(_:entity:as:)``'s: a row that does not decode, whose stored
    /// `id` names another identifier than the row's, or that the context holds by then (a store
    /// that sent it twice) is handed to it, the model decoded here dropped.
    private func materializeNew<T: PersistentModel>(
        _ snapshot: DefaultSnapshot, entity: Schema.Entity, as registrationType: TypedRegistration<T>.Type
    ) throws -> T {
        guard let model: T = try? SnapshotQuery.materialize(snapshot) else {
            return try materialize(snapshot, entity: entity, as: registrationType)
        }
        // `model.persistentModelID`, as `register` reads it.
        let identifier = PersistentIdentifier(entityName: entity.name, primaryKey: PersistentIdentifier.primaryKey(model.id))
        guard identifier == snapshot.persistentIdentifier else { return try materialize(snapshot, entity: entity, as: registrationType) }
        let baseline = snapshot.values
        let (registration, made) = registrations.registerSettledIfAbsent(identifier) {
            registrationType.init(model: model, entity: entity, baseline: baseline, state: .persisted, order: takeOrder())
        }
        guard made else { return try materialize(snapshot, entity: entity, as: registrationType) }
        // Decoded from its stored values just now, as `register` settles it.
        registration.settle()
        return model
    }

    /// Registers a fetched model; its relationships are set by the next
    /// ``resolvePendingRelationships()``.
    func register<T: PersistentModel>(_ model: T, baseline: [String: SnapshotValue]) {
        register(model, baseline: baseline, entity: container.schema.entity(for: T.self))
    }

    /// ``register(_:baseline:)`` with `T`'s entity already looked up (`nil`: not in the schema,
    /// not registered).
    func register<T: PersistentModel>(_ model: T, baseline: [String: SnapshotValue], entity: Schema.Entity?) {
        register(model, baseline: baseline, entity: entity, as: TypedRegistration<T>.self)
    }

    /// ``register(_:baseline:entity:)`` as a `registrationType` (`TypedRegistration<T>`, looked
    /// up once by the caller: see ``fetch(_:)``).
    private func register<T: PersistentModel>(
        _ model: T, baseline: [String: SnapshotValue], entity: Schema.Entity?, as registrationType: TypedRegistration<T>.Type
    ) {
        guard let entity else { return }
        // `model.persistentModelID`, with the entity's name (`T.entityName`) as the schema holds
        // it rather than asked of the type again (a locked lookup by type, callgrind).
        let identifier = PersistentIdentifier(entityName: entity.name, primaryKey: PersistentIdentifier.primaryKey(model.id))
        let registration = registrationType.init(model: model, entity: entity, baseline: baseline, state: .persisted, order: takeOrder())
        if entity.relationships.isEmpty {
            // Decoded from its stored values just now. (Otherwise: once its relationships are set.)
            registrations.registerSettled(registration, as: identifier)
            registration.settle()
        } else {
            registrations[identifier] = registration
            pendingResolution.append(registration)
        }
    }
}
