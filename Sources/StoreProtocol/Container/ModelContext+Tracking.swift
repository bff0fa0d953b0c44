import Foundation

/// Inserting, deleting and forgetting models, pending changes, rollback, and models by identifier.
extension ModelContext {
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
    /// tracked (change the stored one). So does a second instance with the id of a model the
    /// context holds (the context holds one instance per id): the held instance takes its values
    /// at ``save()``. The store throws ``DataStoreError/Code/constraintViolation`` for a model
    /// with relationships whose id alone matches a stored one with other related models.
    public func insert<T: PersistentModel>(_ model: T) {
        deletedWhileNew[ObjectIdentifier(model)] = nil
        let schemaEntity = container.schema.entity(for: T.self)
        // `model.persistentModelID`, with the schema entity's name (`T.entityName`) when the
        // schema holds `T`: asking the type is a locked lookup by type.
        let id = schemaEntity.map { PersistentIdentifier(entityName: $0.name, primaryKey: PersistentIdentifier.primaryKey(model.id)) }
            ?? model.persistentModelID
        let existing = registrations[id]
        if let existing, existing.model === model {
            if existing.state == .deleted { existing.state = existing.baseline == nil ? .inserted : .persisted }
            return
        }
        if let existing, existing.state != .deleted {
            // Replacing the registration would leave the instance the caller holds untracked:
            // its later changes would be lost. save() gives the held instance these values.
            secondInstances.append(TypedRegistration(model: model, entity: existing.entity, baseline: nil, state: .inserted, order: takeOrder()))
            return
        }
        // A model another context holds only as the new owner of a model it holds
        // (`newFolder.items.append(item)`) is this context's: inserted here explicitly, it leaves
        // that context, and this context's save judges the member (refuses another context's).
        if let log = model.persistentBackingData.tracker, log !== registrations.touches, let other = log.owningContext {
            _ = other.releaseOwnerOfHeldModel(model)
        }
        if let owner = ModelOwner.of(model), owner.context != nil, owner.container !== container {
            // Stored here, it would be tracked by two contexts and its changes would reach both stores.
            foreignModels.append(ModelContextError(.modelOfAnotherContext,
                "\(id) is tracked by \(owner.contextDescription) of another container (its stores: "
                + "\(Self.describeStores(of: owner.container))); inserting it here would copy it into "
                + "\(Self.describeStores(of: container)) and leave one instance tracked by two contexts. Insert a new model "
                + "with its values; nothing was saved."))
            return
        }
        guard let entity = schemaEntity else {
            // Unknown types are reported by save(), which can throw; till then a pending insert.
            if !unknownInserts.contains(where: { $0 === model }) {
                unknownInserts.append(model)
                autosave.changeWasMade()
            }
            return
        }
        let registration = TypedRegistration(model: model, entity: entity, baseline: nil, state: .inserted, order: takeOrder())
        registrations[id] = registration
        if !entity.relationships.isEmpty { insertRelatedModels(from: [registration]) }
        autosave.changeWasMade()
    }


    /// Inserts a model new to every context that a relationship of a model this context holds
    /// came to hold (`folder.items.append(item)`, `folder.items = [a, b]`,
    /// `holder.folder = newFolder`), or whose own to-one came to hold a model this context holds
    /// (`item.folder = folder`): SwiftData inserts it at once, so ``hasChanges``,
    /// ``insertedModelsArray`` and fetches count it before the save, and ``rollback()`` drops it.
    /// Its setter calls this (``ModelBacking``).
    ///
    /// With `asOwnerOfHeldModel`, `model` is a new model whose to-many came to hold a model this
    /// context holds (`newFolder.items.append(item)`): its registration notes so, so that an
    /// explicit insert into a context of another container may take it back
    /// (``releaseOwnerOfHeldModel(_:)``).
    func insertNewlyRelated<T: PersistentModel>(_ model: T, asOwnerOfHeldModel: Bool = false) {
        insert(model)
        if asOwnerOfHeldModel, let registration = registrations[model.persistentModelID], registration.model === model,
           registration.state == .inserted {
            registration.insertedAsOwnerOfHeldModel = true
        }
    }

    /// Lets go of `model` if this context holds it only because its to-many came to hold a model
    /// this context holds (``insertNewlyRelated(_:asOwnerOfHeldModel:)``), and it was neither saved
    /// nor brought in step with its inverses since: another context into which it is then inserted
    /// explicitly takes it, and that context's save refuses the member of this context
    /// (``ModelContextError/Code/modelOfAnotherContext``), as it would have without the
    /// relationship's insert. Returns whether it let go.
    func releaseOwnerOfHeldModel(_ model: any PersistentModel) -> Bool {
        let id = model.persistentModelID
        guard let registration = registrations[id], registration.model === model, registration.state == .inserted,
              registration.insertedAsOwnerOfHeldModel, registration.relationshipsInStep == nil else { return false }
        registrations[id] = nil
        forgetAsReferrer(model, registration.entity)
        return true
    }

    /// Marks a model for deletion at the next ``save()``. Deleting a model inserted since the last
    /// save forgets it and takes it out of the inverses of its relationships (a project's
    /// `tasks` no longer holds a deleted new task), so that no save stores it through them.
    /// Deleting a model that a context of another container tracks makes ``save()`` throw
    /// ``ModelContextError/Code/modelOfAnotherContext`` (until ``rollback()``): delete it through
    /// a context of its own container.
    public func delete<T: PersistentModel>(_ model: T) {
        let id = model.persistentModelID
        if let registration = registrations[id], registration.model === model {
            switch registration.state {
            case .inserted:
                registrations[id] = nil
                takeOutOfInverses(model, registration.entity)
                deletedWhileNew[ObjectIdentifier(model)] = WeakModel(model: model)
            case .persisted:
                registration.state = .deleted
                registration.deleteOrder = takeOrder()
                registrations.unsettle(id)
                autosave.changeWasMade()
            case .deleted: break
            }
            return
        }
        if let owner = ModelOwner.of(model), owner.context != nil, owner.container !== container {
            // Registered here, it would be tracked by two contexts: the save would delete nothing
            // in its store, and a later insert here would copy it into this container's.
            foreignModels.append(ModelContextError(.modelOfAnotherContext,
                "\(id) is tracked by \(owner.contextDescription) of another container (its stores: "
                + "\(Self.describeStores(of: owner.container))); deleting it here would delete nothing there and leave one "
                + "instance tracked by two contexts. Delete it through a context of its own container; nothing was saved."))
            return
        }
        guard let entity = container.schema.entity(for: T.self) else {
            // Inserted outside the schema: no longer an insert for save() to refuse.
            unknownInserts.removeAll { $0 === model }
            return
        }
        guard let values = try? model.storedValues() else { return }
        let registration = TypedRegistration(model: model, entity: entity, baseline: values, state: .deleted, order: takeOrder())
        registration.deleteOrder = registration.order
        registrations[id] = registration
        autosave.changeWasMade()
    }

    /// Deletes every stored model of a type that a predicate selects, in one transaction, and
    /// forgets registered instances of them (those the predicate selects with their values
    /// here), and takes those out of the relationships of the models the context holds, as
    /// SwiftData does: `folder.items` no longer holds a deleted item, and is no change to save.
    ///
    /// A predicate that reads a relationship (`$0.trip == nil`, `$0.trip?.name == "T"`) is
    /// decided here, on the models as this context sees them, as ``fetch(_:)`` decides it: a
    /// store holds a relationship as identifiers, not models. The store then deletes the models
    /// selected, by their `id`.
    ///
    /// - Parameters:
    ///   - model: The type of the models to delete.
    ///   - predicate: The models to delete; `nil` deletes every model of the type.
    ///   - includeSubclasses: SwiftData's; models here have no subclasses, so it changes nothing.
    /// - Throws: what the store throws; ``DataStoreError/Code/readOnly`` for a read-only store.
    /// - Complexity: one store request, and O(*n*) for the *n* models the context holds; with a
    ///   predicate that reads a relationship, also a fetch of every model of the type.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        let index = try container.storeIndex(for: T.self)
        try requireWritable(index)
        let store = container.stores[index]
        var storePredicate = predicate
        if let predicate, mayFollowRelationships(FetchDescriptor<T>(predicate: predicate)) {
            storePredicate = Self.idIsOneOf(try fetch(FetchDescriptor<T>(predicate: predicate)).map(\.id))
        }
        try store.delete(DataStoreBatchDeleteRequest<T>(editingState: editingState, predicate: storePredicate))
        var deleted = Set<PersistentIdentifier>()
        for (id, registration) in registrations.byIdentifier where registration.model is T {
            if let predicate {
                guard let model = registration.model as? T, (try? predicate.evaluate(model)) == true else { continue }
            }
            registrations.forgetDeleted(id)
            deleted.insert(id)
            // Its to-one still names the held model; no longer a model that refers to it, which
            // the next save would refuse to store again.
            forgetAsReferrer(registration.model, registration.entity)
        }
        if !deleted.isEmpty { takeOutOfHeldRelationships(deleted, ofEntityNamed: T.entityName) }
    }

    /// A predicate selecting the models whose `id` is one of `keys`, which every store decides.
    private static func idIsOneOf<T: PersistentModel>(_ keys: [T.ID]) -> Predicate<T> {
        // Spelled out: the #Predicate macro cannot type-check `keys.contains($0.id)` for a generic `T`.
        let idKeyPath = idKeyPath(of: T.self)
        return Predicate<T> { model in
            PredicateExpressions.build_contains(
                PredicateExpressions.build_Arg(keys),
                PredicateExpressions.build_KeyPath(root: model, keyPath: idKeyPath))
        }
    }

    /// Takes the models `deleted` (of one entity, deleted from its store) out of the relationships
    /// of every model the context holds, and out of their baselines, so that the store's rows and
    /// the models agree without a change to save: a relationship that held one is as if fetched
    /// again. A model with unsaved changes keeps them.
    private func takeOutOfHeldRelationships(_ deleted: Set<PersistentIdentifier>, ofEntityNamed entityName: String) {
        for registration in Array(registrations.byIdentifier.values) {
            let entity = registration.entity
            guard entity.relationships.contains(where: { $0.destination == entityName }) else { continue }
            let wasSettled = registration.isSettled
            let inStep = registration.relationshipsInStep
            var baseline = registration.baseline
            var changed = false
            for relationship in entity.relationships where relationship.destination == entityName {
                if let access = entity.relationshipAccess[relationship.name] {
                    let members = access.members(registration.model)
                    if members.contains(where: { deleted.contains($0.persistentModelID) }) {
                        access.setMembers(registration.model, members.filter { !deleted.contains($0.persistentModelID) })
                        changed = true
                    }
                }
                if let stored = baseline {
                    let keys = relationship.identifiers(in: stored)
                    if keys.contains(where: deleted.contains) {
                        let kept = keys.filter { !deleted.contains($0) }.map(\.primaryKey)
                        baseline?[relationship.name] = relationship.isToMany ? .array(kept) : kept.first
                        changed = true
                    }
                }
            }
            guard changed else { continue }
            registration.baseline = baseline
            registration.relationshipsInStep = inStep?.mapValues { $0.filter { !deleted.contains($0) } }
            // Unchanged before, it holds its (pruned) baseline now.
            if wasSettled { registration.settle() } else { registrations.unsettle(registration.model.persistentModelID) }
        }
    }

    /// Whether a ``save()`` would change anything (or throw for a pending insert of a model whose
    /// type the schema does not hold). A new model related to a model the context holds counts from
    /// the set that related them: it is inserted then, as SwiftData does.
    /// - Complexity: one encode for each inserted or deleted model and each model set since it
    ///   was fetched or saved. Unchanged models cost nothing.
    public var hasChanges: Bool {
        !secondInstances.isEmpty || !unknownInserts.isEmpty || registrations.mayHaveChanged(inOrder: false).contains { (try? $0.isDirty()) ?? true }
    }

    /// Forgets stored models that are unchanged and that nothing but the context holds (no
    /// variable, no other model's relationship): no one can change them any more. A model
    /// changed and then let go before a save is not lost: its changed bits say so, and it is
    /// kept. A later fetch makes a new instance of a forgotten model; nothing holds the old one
    /// to tell them apart.
    ///
    /// Called by ``save()`` only, once inverses are in step (``processPendingChanges()``): a model
    /// let go by a relationship may still need its inverse updated by that save.
    ///
    /// Models that hold each other (the two sides of an inverse relationship) hold each other
    /// outside the context's reach, and stay registered while the context lives.
    ///
    /// Settled models (unchanged, see ``RegistrationTable``) are not looked at by every save:
    /// those the last save saved are (the models you change, save and let go), and all of them
    /// when the context holds twice as many models as the last time it looked at all (fetched,
    /// never changed, and let go). So a save stays O(changes), and a model let go is forgotten by
    /// the next save if the last one saved it, and otherwise within a doubling of the models the
    /// context holds.
    /// - Complexity: O(*u*) reference checks for *u* models not settled and those the last save
    ///   saved; amortized O(1) per model registered for the others.
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

    /// Models inserted and not yet saved, in the order inserted; those whose types the schema
    /// does not hold (which ``save()`` throws for) last.
    public var insertedModelsArray: [any PersistentModel] {
        registrations.mayHaveChanged().filter { $0.state == .inserted }.map(\.model) + unknownInserts
    }

    /// Models deleted and not yet saved.
    public var deletedModelsArray: [any PersistentModel] {
        registrations.mayHaveChanged(inOrder: false).filter { $0.state == .deleted }.sorted { $0.deleteOrder < $1.deleteOrder }.map(\.model)
    }

    /// Stored models changed and not yet saved.
    public var changedModelsArray: [any PersistentModel] {
        registrations.mayHaveChanged().filter { $0.state == .persisted && ((try? $0.isDirty()) ?? true) }.map(\.model)
    }

    /// Drops pending changes: forgets unsaved inserts (those inserted through a relationship
    /// too: a new model whose to-one was set to a held model stays set, and is not saved), cancels
    /// deletions, and returns changed models to their last saved values (their relationships
    /// too).
    public func rollback() {
        unknownInserts.removeAll()
        deletedWhileNew.removeAll()
        secondInstances.removeAll()
        foreignModels.removeAll()
        undo?.manager.removeAllActions()
        undo?.checkpoint.removeAll()
        for registration in registrations.mayHaveChanged(inOrder: false) {
            switch registration.state {
            case .inserted:
                registrations[registration.model.persistentModelID] = nil
                // Its to-one may still name a held model: no longer a new model that refers to
                // it, which the next save would insert again (`item.folder = folder; rollback()`).
                forgetAsReferrer(registration.model, registration.entity)
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
        } else {
            // It holds its baseline now; the bits its assignment set are no change to save.
            registration.settle()
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
}
