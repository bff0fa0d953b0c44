import Foundation

/// Tracks models and saves their changes: SwiftData's `ModelContext`.
///
/// A context keeps one instance per identifier (its identity map). It notices changes to a
/// model of an `@Observable` type whose attributes are standard values (numbers, `Bool`,
/// `String`, `Date`, `UUID`, `URL`, `Data`, optionals and arrays of them, enums of them) by
/// observing it: once the context has seen such a model hold its stored values, the model costs
/// a save nothing until one of its properties is set. It notices changes to other models by
/// comparing a model's current snapshot with the one last saved or fetched. At each ``save()``, a stored model that nothing outside the context holds
/// any more is compared once more and then forgotten. So ``hasChanges`` and ``save()`` cost the
/// models changed, plus the plain (not observable) models held outside the context, not every
/// model the context ever fetched.
///
/// Not Sendable, like SwiftData's: make one context per task on a shared ``ModelContainer``.
public final class ModelContext {
    /// The container whose stores this context reads and writes.
    public let container: ModelContainer
    /// Recorded as the author of every history transaction this context saves.
    public var author: String? {
        didSet { registrations.author = author }
    }

    let editingID: UUID
    var registrations: RegistrationTable
    /// How many models the last pass over every registration left (``forgetModelsNoOneHolds()``).
    var countAfterFullSweep = 0
    /// How many models the last ``save()`` encoded (inserted and possibly changed ones): what
    /// the tests read to check that a save costs the changes, not the models held.
    var modelsEncodedByLastSave = 0
    /// The models the last save sent or found unchanged: once saved, a watched model is settled,
    /// and the next save looks at these to forget those let go since (``forgetModelsNoOneHolds()``).
    var lookedAtByLastSave: [Registration] = []
    var nextOrder = 0
    /// Models given stored values whose relationships are not set yet
    /// (``resolvePendingRelationships()``).
    var pendingResolution: [Registration] = []
    /// The streams of ``didSaveSummaries()``.
    var saveObservers: [AsyncStream<SaveSummary>.Continuation] = []
    /// The undo manager and its checkpoint, when ``undoManager`` is set.
    var undo: UndoRecorder?

    /// A context on `container`'s stores, holding no model yet. Cheap: make one per task.
    public init(_ container: ModelContainer) {
        self.container = container
        editingID = EditingState.makeID()
        registrations = RegistrationTable(context: editingID, container: container)
    }

    deinit {
        for observer in saveObservers { observer.finish() }
        registrations.releaseAll()
    }

    var editingState: EditingState { EditingState(id: editingID, author: author) }

    /// What the context knows of one model.
    final class Registration {
        enum State { case inserted, persisted, deleted }
        /// The model, held through its own type (``ModelHolder``).
        private let holder: any ModelHolder
        var model: any PersistentModel { holder.model }
        let entity: Schema.Entity
        /// Watches a hand-written model of an `@Observable` type for changes; `nil` for other types.
        let watch: ChangeWatch?
        /// The per-instance state of an `@Model` model, whose changed bits say what changed since
        /// the context last settled it; `nil` for a hand-written model.
        let backing: ModelBacking?
        /// Whether the model held its ``baseline`` when its ``watch`` was last armed (or, for an
        /// `@Model` model, when its changed bits were last cleared).
        var settledWhileArmed = false
        /// The values last saved or fetched; `nil` for a model inserted and not yet saved.
        var baseline: [String: SnapshotValue]?
        var state: State
        /// When the model became known (inserted or fetched): the order of inserts and updates.
        let order: Int
        /// When the model was deleted: the order of deletes.
        var deleteOrder = 0

        init(model: any PersistentModel, entity: Schema.Entity, baseline: [String: SnapshotValue]?, state: State, order: Int) {
            func hold<Model: PersistentModel>(_ model: Model) -> any ModelHolder { TypedModelHolder(model) }
            holder = hold(model)
            self.entity = entity
            backing = model.persistentBackingData
            watch = backing == nil ? entity.observation.map { _ in ChangeWatch(model.persistentModelID) } : nil
            self.baseline = baseline
            self.state = state
            self.order = order
        }

        func currentValues() throws -> [String: SnapshotValue] {
            let values: [String: SnapshotValue]
            do { values = try model.storedValues() } catch {
                throw ModelContextError(.unencodableModel, "\(model.persistentModelID) could not be encoded: \(error).")
            }
            if let unlisted = values.keys.first(where: { !entity.attributeNameSet.contains($0) }) {
                throw ModelContextError(.unencodableModel,
                    "\(entity.modelType) encodes `\(unlisted)`, which its schemaMetadata does not list among its "
                    + "attributes; list its key path, or leave it out of the model's CodingKeys if it is not stored.")
            }
            return values
        }

        /// Whether nothing but this registration holds the model: then no one can change it.
        var isHeldOnlyByTheContext: Bool { holder.isUniquelyReferenced() }

        /// Whether the model is stored and cannot have changed since it held its stored values:
        /// its watch has been armed since (or its changed bits cleared), and no property was set.
        var isSettled: Bool {
            guard state == .persisted, settledWhileArmed else { return false }
            if let backing { return !backing.hasChanges }
            return watch?.isArmed == true
        }

        /// Starts watching the model (for an `@Observable` type) unless its watch is armed; the
        /// caller says when the model is known to hold its ``baseline`` (``settledWhileArmed``).
        func arm(log: TouchLog) {
            guard let watch, let observation = entity.observation, !watch.isArmed else { return }
            settledWhileArmed = false
            watch.arm(reading: { observation.readProperties(model) }, log: log)
        }

        /// The model holds its ``baseline`` now: from here on, a property set (an `@Model`
        /// model's changed bit, a watched model's observation) marks it changed.
        func settle(log: TouchLog) {
            if let backing {
                backing.settle()
            } else {
                arm(log: log)
            }
            settledWhileArmed = true
        }

        /// The attributes and relationships whose values differ from the baseline: for an
        /// `@Model` model settled since it held its baseline, only among the properties set since
        /// (`changed`, its changed bits); for other models, among all.
        /// - Complexity: one encode of the model, and a comparison of the properties set (all
        ///   properties for a hand-written model).
        func changedAttributes(_ current: [String: SnapshotValue], setSince changed: PropertyBitSet?) -> [String] {
            let baseline = baseline ?? [:]
            guard let changed, settledWhileArmed else {
                return DefaultSnapshot(persistentIdentifier: model.persistentModelID, values: current).changedAttributes(from: baseline)
            }
            let names = entity.propertyNames
            return changed.members.compactMap { index in
                // Absent and null are the same value (a nil optional), as in changedAttributes(from:).
                guard index < names.count, entity.attributeNameSet.contains(names[index]),
                      (current[names[index]] ?? .null) != (baseline[names[index]] ?? .null) else { return nil }
                return names[index]
            }
        }

        /// Whether a persisted model's values differ from its baseline.
        /// - Complexity: O(1) for a settled model; one encode otherwise (and for an `@Model`
        ///   model, a comparison of the properties set only).
        func isDirty() throws -> Bool {
            if isSettled { return false }
            guard state == .persisted, baseline != nil else { return state != .persisted }
            return !changedAttributes(try currentValues(), setSince: backing?.changedProperties).isEmpty
        }
    }

    func takeOrder() -> Int {
        nextOrder += 1
        return nextOrder
    }

    // MARK: Tracking

    /// Registers a new model to be inserted at the next ``save()``, with the models its
    /// relationships hold that the context does not hold yet (a model another context tracks,
    /// or one deleted and saved, makes ``save()`` throw; see ``processPendingChanges()``).
    /// Inserting a registered model again does nothing; inserting a deleted one cancels its
    /// deletion, and inserting one deleted and saved stores it again.
    ///
    /// A model with the id or the unique values of a stored one updates the stored one when
    /// saved (SwiftData's upsert), and the inserted instance then stands for it (takes its id).
    /// When this context holds the stored model, or the unique values match and the model has
    /// relationships, the stored model (the instance held, or the one a fetch by the unique
    /// values finds, one fetch per such insert) takes the inserted values, relationships
    /// included: the held instance stays tracked and shows them, the stored model's former
    /// related models stay stored and no longer name it, and the inserted instance is no longer
    /// tracked (change the stored one). Inserting a second instance with the id of a model the
    /// context holds makes ``save()`` throw ``DataStoreError/Code/constraintViolation`` (the
    /// context holds one instance per id), and so does the store for a model with relationships
    /// whose id alone matches a stored one with other related models.
    public func insert<T: PersistentModel>(_ model: T) {
        let id = model.persistentModelID
        if let existing = registrations[id], existing.model === model {
            if existing.state == .deleted { existing.state = existing.baseline == nil ? .inserted : .persisted }
            return
        }
        if let existing = registrations[id], existing.state != .deleted {
            // Replacing the registration would leave the instance the caller holds untracked:
            // its later changes would be lost. save() refuses instead.
            secondInstances.append(id)
            return
        }
        if let owner = ModelOwnership.owner(of: model), owner.context != nil, owner.container !== container {
            // Stored here, it would be tracked by two contexts and its changes would reach both stores.
            foreignInserts.append(ModelContextError(.modelOfAnotherContext,
                "\(id) is tracked by \(owner.contextDescription) of another container (its stores: "
                + "\(Self.describeStores(of: owner.container))); inserting it here would copy it into "
                + "\(Self.describeStores(of: container)) and leave one instance tracked by two contexts. Insert a new model "
                + "with its values; nothing was saved."))
            return
        }
        guard let entity = container.schema.entity(for: T.self) else {
            // Unknown types are reported by save(), which can throw.
            unknownInserts.append(T.entityName)
            return
        }
        let registration = Registration(model: model, entity: entity, baseline: nil, state: .inserted, order: takeOrder())
        registrations[id] = registration
        if !entity.relationships.isEmpty { insertRelatedModels(from: [registration]) }
    }

    /// Entity names of inserted models the schema does not hold; `save()` throws for them.
    private var unknownInserts: [String] = []
    /// Identifiers of models inserted while the context held another instance of them; `save()`
    /// throws for them.
    private var secondInstances: [PersistentIdentifier] = []
    /// Models of another container inserted here; `save()` throws for them.
    private var foreignInserts: [ModelContextError] = []

    /// Marks a model for deletion at the next ``save()``. Deleting a model inserted since the last
    /// save just forgets it.
    public func delete<T: PersistentModel>(_ model: T) {
        let id = model.persistentModelID
        if let registration = registrations[id], registration.model === model {
            switch registration.state {
            case .inserted: registrations[id] = nil
            case .persisted:
                registration.state = .deleted
                registration.deleteOrder = takeOrder()
                registrations.unsettle(id)
            case .deleted: break
            }
            return
        }
        guard let entity = container.schema.entity(for: T.self),
              let values = try? model.storedValues() else { return }
        let registration = Registration(model: model, entity: entity, baseline: values, state: .deleted, order: takeOrder())
        registration.deleteOrder = registration.order
        registrations[id] = registration
    }

    /// Deletes every stored model of a type that a predicate selects, in one transaction, and
    /// forgets registered instances of them.
    /// - Throws: what the store throws; ``DataStoreError/Code/readOnly`` for a read-only store.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil) throws {
        let index = try container.storeIndex(for: T.self)
        try requireWritable(index)
        let store = container.stores[index]
        try store.delete(DataStoreBatchDeleteRequest<T>(editingState: editingState, predicate: predicate))
        for (id, registration) in registrations.byIdentifier where registration.model is T {
            if let predicate {
                guard let model = registration.model as? T, (try? predicate.evaluate(model)) == true else { continue }
            }
            registrations.forgetDeleted(id)
        }
    }

    /// Whether a ``save()`` would change anything.
    /// - Complexity: one encode for each inserted or deleted model, each `@Observable` model set
    ///   since it was fetched or saved, and each other model held outside the context or let go
    ///   since the last save (which the save forgets once compared). Unchanged `@Observable`
    ///   models cost nothing.
    public var hasChanges: Bool {
        registrations.mayHaveChanged(inOrder: false).contains { (try? $0.isDirty()) ?? true }
    }

    /// Forgets stored models that are unchanged and that nothing but the context holds (no
    /// variable, no other model's relationship): no one can change them any more, so saves and
    /// ``hasChanges`` stop encoding them. A model changed and then let go before a save is not
    /// lost: it is compared with its stored values here, found changed, and kept. A later fetch
    /// makes a new instance of a forgotten model; nothing holds the old one to tell them apart.
    ///
    /// Called by ``save()`` only, once inverses are in step (``processPendingChanges()``): a model
    /// let go by a relationship may still need its inverse updated by that save.
    ///
    /// Models that hold each other (the two sides of an inverse relationship) hold each other
    /// outside the context's reach, and stay registered while the context lives.
    ///
    /// Settled `@Observable` models (unchanged, see ``RegistrationTable``) are not looked at by
    /// every save: those the last save saved are (the models you change, save and let go), and
    /// all of them when the context holds twice as many models as the last time it looked at
    /// all (fetched, never changed, and let go). So a save stays O(changes) for them, and a
    /// watched model let go is forgotten by the next save if the last one saved it, and otherwise
    /// within a doubling of the models the context holds.
    /// - Complexity: O(*u*) reference checks for *u* models not settled and those the last save
    ///   saved, and one encode of each of the first that nothing else holds; amortized O(1) per
    ///   model registered for the others.
    func forgetModelsNoOneHolds() {
        func forgettable(_ registration: Registration) -> Bool {
            registration.state == .persisted && registration.isHeldOnlyByTheContext && (try? registration.isDirty()) == false
        }
        if registrations.count >= 2 * max(countAfterFullSweep, 512) {
            // Forgetting a model lets go of the models its relationships hold: look again.
            while registrations.removeAll(where: forgettable) > 0 {}
            countAfterFullSweep = registrations.count
        } else {
            var looking = registrations.mayHaveChanged(inOrder: false) + lookedAtByLastSave
            while true {
                let forgotten = looking.filter(forgettable)
                guard !forgotten.isEmpty else { break }
                for registration in forgotten {
                    let id = registration.model.persistentModelID
                    // Not another registration made for the same identifier since.
                    if registrations[id] === registration { registrations[id] = nil }
                }
                looking = registrations.mayHaveChanged(inOrder: false)
            }
        }
        lookedAtByLastSave = []
    }

    /// Models inserted and not yet saved.
    public var insertedModelsArray: [any PersistentModel] {
        registrations.mayHaveChanged().filter { $0.state == .inserted }.map(\.model)
    }

    /// Models deleted and not yet saved.
    public var deletedModelsArray: [any PersistentModel] {
        registrations.mayHaveChanged(inOrder: false).filter { $0.state == .deleted }.sorted { $0.deleteOrder < $1.deleteOrder }.map(\.model)
    }

    /// Stored models changed and not yet saved.
    public var changedModelsArray: [any PersistentModel] {
        registrations.mayHaveChanged().filter { $0.state == .persisted && ((try? $0.isDirty()) ?? true) }.map(\.model)
    }

    /// Drops pending changes: forgets unsaved inserts, cancels deletions, and returns changed
    /// models to their last saved values.
    public func rollback() {
        unknownInserts.removeAll()
        secondInstances.removeAll()
        foreignInserts.removeAll()
        undo?.manager.removeAllActions()
        undo?.checkpoint.removeAll()
        for registration in registrations.mayHaveChanged(inOrder: false) {
            switch registration.state {
            case .inserted: registrations[registration.model.persistentModelID] = nil
            case .deleted, .persisted:
                registration.state = .persisted
                if let baseline = registration.baseline { try? restore(registration, to: baseline) }
            }
        }
        try? resolvePendingRelationships()
    }

    /// Sets a registered model's values to `values`, keeping the instance.
    /// Its relationships are set by the next ``resolvePendingRelationships()``.
    func restore(_ registration: Registration, to values: [String: SnapshotValue]) throws {
        try registration.model.assignStoredValues(values)
        registration.baseline = values
        if !registration.entity.relationships.isEmpty {
            pendingResolution.append(registration)
        } else if registration.backing != nil {
            // It holds its baseline now; the bits its assignment set are no change to save.
            registration.settle(log: registrations.touches)
        }
    }

    /// The registered model with this identifier, without fetching.
    public func registeredModel<T: PersistentModel>(for identifier: PersistentIdentifier) -> T? {
        registrations[identifier]?.model as? T
    }

    /// The model with this identifier: the registered instance, or fetched from its store.
    /// - Throws: ``DataStoreError/Code/unknownEntity``; what the store throws.
    public func model(for identifier: PersistentIdentifier) throws -> (any PersistentModel)? {
        if let registration = registrations[identifier] { return registration.model }
        guard let entity = container.schema.entity(named: identifier.entityName) else {
            throw DataStoreError.unknownEntity(identifier.entityName, in: container.schema)
        }
        return try fetchOne(entity.modelType, primaryKey: identifier.primaryKey)
    }

    private func fetchOne<T: PersistentModel>(_ type: T.Type, primaryKey: SnapshotValue) throws -> T? {
        guard let id = try? SnapshotDecoder().decode(T.ID.self, from: primaryKey) else { return nil }
        // Spelled out: the #Predicate macro cannot type-check `$0.id == id` for a generic `T`.
        let idKeyPath = Self.idKeyPath(of: T.self)
        let byID = Predicate<T> { model in
            PredicateExpressions.build_Equal(
                lhs: PredicateExpressions.build_KeyPath(root: model, keyPath: idKeyPath),
                rhs: PredicateExpressions.build_Arg(id))
        }
        var descriptor = FetchDescriptor<T>(predicate: byID)
        descriptor.fetchLimit = 1
        return try fetch(descriptor).first
    }

    // MARK: Saving

    func requireWritable(_ storeIndex: Int) throws {
        let store = container.stores[storeIndex]
        func allowsSave<S: DataStore>(_ store: S) -> Bool { store.configuration.allowsSave }
        guard allowsSave(store) else {
            throw DataStoreError(.readOnly,
                "The store '\(store.configuration.name)' is read-only (allowsSave is false); nothing was saved.")
        }
    }

    /// One store's share of a save.
    private struct Plan {
        var inserted: [(Registration, DefaultSnapshot)] = []
        var updated: [(Registration, DefaultSnapshot)] = []
        var deleted: [(Registration, DefaultSnapshot)] = []
        /// For each update, the attributes and relationships changed since the model was last
        /// saved or fetched: all the store writes of it.
        var updatedAttributes: [PersistentIdentifier: Set<String>] = [:]
        /// For each update, the members added to and removed from each changed to-many
        /// relationship since then: what the store applies to the members it holds.
        var toManyChanges: [PersistentIdentifier: [String: ToManyChange]] = [:]
        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    }

    /// Sends every pending change to its store, one request per store, each recorded as one
    /// history transaction. Nothing is sent when nothing changed. Posts ``willSave`` before
    /// sending and ``didSave`` (and yields to ``didSaveSummaries()``) after, with what was saved.
    ///
    /// A changed model saves only what this context changed: the attributes and relationships
    /// whose values differ from those it last saved or fetched
    /// (``DataStoreSaveChangesRequest/updatedAttributes``). The store writes those into its row
    /// and keeps the others, so a change another context or process saved meanwhile to another
    /// attribute stays, and history lists only what this save changed. Of two saves that change
    /// the same attribute, the later save wins. A to-many relationship saves the members this
    /// context added and removed (``DataStoreSaveChangesRequest/toManyChanges``), which the store
    /// applies to the members it holds: two contexts adding or moving different members of one
    /// relationship both keep their change, and a reorder alone saves nothing. The instance here
    /// keeps its own values (a to-many array without the members another save added meanwhile);
    /// a later fetch gives an instance without unsaved changes the stored ones, the other saves' too.
    ///
    /// Before sending, it brings relationships in order (``processPendingChanges()``) and makes
    /// the unique-constraint upserts the context must make itself (see ``insert(_:)``).
    ///
    /// - Throws: ``DataStoreError/Code/readOnly`` (nothing sent), ``DataStoreError/Code/unknownEntity``,
    ///   ``DataStoreError/Code/constraintViolation`` for a second instance of a held model,
    ///   ``ModelContextError/Code/modelOfAnotherContext`` for an inserted model of another
    ///   container, what ``processPendingChanges()`` throws (nothing sent), or what a store
    ///   throws. A store that throws is left as it was and this context keeps the changes meant
    ///   for it; with several stores, stores saved before the failing one keep their saves.
    public func save() throws {
        if let unknown = unknownInserts.first { throw DataStoreError.unknownEntity(unknown, in: container.schema) }
        if let refusal = foreignInserts.first { throw refusal }
        if let id = secondInstances.first {
            throw DataStoreError(.constraintViolation,
                "A model inserted as \(id) is another instance of a model this context holds; saving it would leave that "
                + "instance untracked and its changes lost. Change the instance the context holds (context.model(for:)), "
                + "or delete it first; nothing was saved.")
        }
        try processPendingChanges()
        forgetModelsNoOneHolds()
        if try mergeInsertsIntoStoredModels() {
            // The stored models took new relationships: their former and new members follow.
            keepInversesInStep()
            try applyDeleteRules()
            foldMergedUpsertsIntoUndoGroup()
        }
        try noteStoreUpsertsForUndo()
        var plans: [Int: Plan] = [:]
        // The changed bits of @Model models this save took: given back to the models whose
        // store the save does not reach (a store that throws, or an error before it).
        var taken: [Int: [(ModelBacking, PropertyBitSet)]] = [:]
        defer {
            for (backing, changes) in taken.values.joined() { backing.restoreChanges(changes) }
        }
        modelsEncodedByLastSave = 0
        for registration in registrations.mayHaveChanged() {
            let storeIndex = try container.storeIndex(forEntityNamed: registration.entity.name)
            let id = registration.model.persistentModelID
            // Watched from before the values are read: a change made after (by a willSave
            // observer, say) disarms the watch (or sets a changed bit), so the saved model is not
            // taken as settled.
            var setSince: PropertyBitSet?
            if registration.state != .deleted, let backing = registration.backing {
                let changes = backing.takeChanges()
                taken[storeIndex, default: []].append((backing, changes))
                setSince = changes
                lookedAtByLastSave.append(registration)
            } else if registration.state != .deleted, registration.watch != nil {
                registration.arm(log: registrations.touches)
                lookedAtByLastSave.append(registration)
            }
            if registration.state != .deleted { modelsEncodedByLastSave += 1 }
            switch registration.state {
            case .inserted:
                plans[storeIndex, default: Plan()].inserted.append(
                    (registration, DefaultSnapshot(persistentIdentifier: id, values: try registration.currentValues())))
            case .persisted:
                let current = DefaultSnapshot(persistentIdentifier: id, values: try registration.currentValues())
                let changed = registration.changedAttributes(current.values, setSince: setSince)
                if changed.isEmpty {
                    registration.settledWhileArmed = true
                    continue
                }
                plans[storeIndex, default: Plan()].updated.append((registration, current))
                plans[storeIndex, default: Plan()].updatedAttributes[id] = Set(changed)
                for relationship in registration.entity.relationships where relationship.isToMany && changed.contains(relationship.name) {
                    plans[storeIndex, default: Plan()].toManyChanges[id, default: [:]][relationship.name] =
                        ToManyChange(from: registration.baseline?[relationship.name], to: current.values[relationship.name])
                }
            case .deleted:
                plans[storeIndex, default: Plan()].deleted.append(
                    (registration, DefaultSnapshot(persistentIdentifier: id, values: registration.baseline ?? [:])))
            }
        }
        for storeIndex in plans.keys { try requireWritable(storeIndex) }
        postWillSave()
        var summary = SaveSummary()
        // Posted for what the stores took, also when a later store throws.
        defer { postDidSave(summary) }
        for (storeIndex, plan) in plans.sorted(by: { $0.key < $1.key }) {
            var plan = plan
            plan.deleted.sort { $0.0.deleteOrder < $1.0.deleteOrder }
            let result = try send(plan, to: container.stores[storeIndex])
            taken[storeIndex] = nil
            apply(result, of: plan)
            for (_, snapshot) in plan.inserted {
                if let stored = result.remappedIdentifiers[snapshot.persistentIdentifier] {
                    summary.updated.append(stored)
                } else {
                    summary.inserted.append(snapshot.persistentIdentifier)
                }
            }
            // A stored model changed and met by a colliding insert in the same save is one update.
            summary.updated += plan.updated.map(\.1.persistentIdentifier).filter { !summary.updated.contains($0) }
            summary.deleted += plan.deleted.map(\.1.persistentIdentifier)
        }
        try resolvePendingRelationships()   // models a collision re-registered
        refreshUndoCheckpoint()
        recordUpsertsForUndo()
    }

    private func send(_ plan: Plan, to store: any DataStore) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        func run<S: DataStore>(_ store: S) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
            func convert(_ rows: [(Registration, DefaultSnapshot)]) -> [S.Snapshot] {
                rows.map { S.Snapshot(persistentIdentifier: $0.1.persistentIdentifier, values: $0.1.values) }
            }
            let result = try store.save(DataStoreSaveChangesRequest(
                editingState: editingState, inserted: convert(plan.inserted),
                updated: convert(plan.updated), deleted: convert(plan.deleted), updatedAttributes: plan.updatedAttributes,
                toManyChanges: plan.toManyChanges))
            return DataStoreSaveChangesResult(
                for: result.storeIdentifier, remappedIdentifiers: result.remappedIdentifiers,
                snapshotsToReregister: result.snapshotsToReregister.mapValues {
                    DefaultSnapshot(persistentIdentifier: $0.persistentIdentifier, values: $0.values)
                })
        }
        return try run(store)
    }

    private func apply(_ result: DataStoreSaveChangesResult<DefaultSnapshot>, of plan: Plan) {
        for (registration, snapshot) in plan.inserted {
            let id = snapshot.persistentIdentifier
            registration.state = .persisted
            registration.baseline = snapshot.values
            registration.settledWhileArmed = true   // armed before its values were read
            guard let storedID = result.remappedIdentifiers[id] else { continue }
            // A unique-constraint collision: this instance now stands for the stored model.
            registrations[id] = nil
            registrations[storedID] = registration
            guard let stored = result.snapshotsToReregister[storedID] else { continue }
            // It takes the stored model's values, which are what it had when the save read it
            // but its id. A value set since (by a willSave observer) is set again after, so the
            // instance keeps it and the next save sends it.
            var since = (try? registration.currentValues()) ?? snapshot.values
            since["id"] = stored.values["id"]
            try? restore(registration, to: stored.values)
            if since != stored.values { try? registration.model.assignStoredValues(since) }
        }
        for (registration, snapshot) in plan.updated {
            let stored = result.snapshotsToReregister[snapshot.persistentIdentifier]?.values
            registration.baseline = stored ?? snapshot.values
            // Armed before its values were read; values the store changed are compared again.
            registration.settledWhileArmed = stored == nil
        }
        for (_, snapshot) in plan.deleted { registrations.forgetDeleted(snapshot.persistentIdentifier) }
    }
}

/// A registered model, held through its own type: `isKnownUniquelyReferenced` needs a class type,
/// and through `AnyObject` a debug build always answers "not unique".
protocol ModelHolder: AnyObject {
    var model: any PersistentModel { get }
    func isUniquelyReferenced() -> Bool
}

final class TypedModelHolder<Model: PersistentModel>: ModelHolder {
    private var typed: Model
    init(_ model: Model) { typed = model }
    var model: any PersistentModel { typed }
    func isUniquelyReferenced() -> Bool { isKnownUniquelyReferenced(&typed) }
}

@available(*, unavailable, message: "A ModelContext belongs to one task; make one per task from a shared ModelContainer.")
extension ModelContext: Sendable {}
