import Foundation

/// Relationships in the context: loading related models, keeping inverses in step, inserting
/// related new models, and delete rules.
///
/// Loading is eager and batched: when a fetch (or a refresh, or a rollback) gives models their
/// stored values, the context loads the models their relationships name that it does not hold
/// yet, with one store fetch per destination entity and level of the graph, then sets each
/// relationship to the registered instances (the identity map: one instance per identifier).
/// A store that sends the related rows along with a fetch (``DataStoreFetchResult/relatedSnapshots``,
/// as the `SnapshotTable` stores do) saves those fetches: the rows it sent are taken instead,
/// and only the models it did not send are fetched by key. A reference to a model that is no
/// longer stored (a ``DeleteRule/noAction`` delete, another process's delete) is dropped.
extension ModelContext {
    // MARK: Loading

    /// Sets the relationships of every model given stored values since the last call, loading
    /// the models they name, level by level. A named model is loaded unless it was given stored
    /// values in this pass (so a model held from before is read again, and one that is no longer
    /// stored is dropped from the relationship).
    ///
    /// A model to load that `preloaded` holds a row of is registered from that row (as a fetch
    /// by key would have returned it), the others are fetched by key.
    /// - Throws: what the store throws for the batch fetches.
    func resolvePendingRelationships(preloaded: PreloadedRows = PreloadedRows()) throws {
        var confirmed = Set<PersistentIdentifier>()   // given stored values in this pass
        var gone = Set<PersistentIdentifier>()        // asked for and not stored
        while !pendingResolution.isEmpty {
            for registration in pendingResolution { confirmed.insert(registration.model.persistentModelID) }
            let level = pendingResolution.filter { !$0.entity.relationships.isEmpty && $0.baseline != nil }
            pendingResolution.removeAll()
            // One fetch per destination entity for the keys not confirmed yet.
            var wanted: [String: [PersistentIdentifier]] = [:]
            var seen = Set<PersistentIdentifier>()
            for registration in level {
                guard let baseline = registration.baseline else { continue }
                for relationship in registration.entity.relationships {
                    relationship.forEachIdentifier(in: baseline) { id in
                        if !confirmed.contains(id) && (gone.isEmpty || !gone.contains(id)) && seen.insert(id).inserted {
                            wanted[id.entityName, default: []].append(id)
                        }
                    }
                }
            }
            for (entityName, wantedIdentifiers) in wanted.sorted(by: { $0.key < $1.key }) {
                guard let entity = container.schema.entity(named: entityName) else { continue }
                // The rows the store sent along, registered as the fetch by key would; the rest fetched.
                var identifiers = wantedIdentifiers
                if preloaded.holdsRows(ofEntityNamed: entityName, in: container) {
                    let (rows, missing) = preloaded.rows(for: wantedIdentifiers)
                    try registerPreloaded(entity.modelType, rows)
                    confirmed.formUnion(rows.lazy.map(\.persistentIdentifier))
                    identifiers = missing
                    if identifiers.isEmpty { continue }
                }
                // Registers them (for the next level) and refreshes the ones held from before.
                let found = try loadModels(entity.modelType, primaryKeys: identifiers.map(\.primaryKey))
                confirmed.formUnion(found)
                gone.formUnion(identifiers.filter { !found.contains($0) })
            }
            // A level holds runs of one entity: its relationships' accessors are looked up once per run.
            var accessed: (entityName: String, relationships: [(Schema.Relationship, RelationshipAccess)])?
            for registration in level {
                let entity = registration.entity
                if accessed?.entityName != entity.name {
                    accessed = (entity.name, entity.relationships.compactMap { relationship in
                        entity.relationshipAccess[relationship.name].map { (relationship, $0) }
                    })
                }
                assignRelationships(registration, accessed?.relationships ?? [], dropping: gone)
            }
        }
    }

    /// Sets a registration's relationships (`relationships`, each with its accessor) to the
    /// registered instances its baseline names, and drops from the baseline the references to
    /// models that are not stored (`gone`, or not held at all).
    private func assignRelationships(_ registration: Registration, _ relationships: [(Schema.Relationship, RelationshipAccess)],
                                     dropping gone: Set<PersistentIdentifier>) {
        guard var baseline = registration.baseline else { return }
        var pruned = false
        for (relationship, access) in relationships {
            var members: [any PersistentModel] = []
            var named = 0
            relationship.forEachIdentifier(in: baseline) { id in
                named += 1
                if gone.isEmpty || !gone.contains(id), let member = registrations[id]?.model { members.append(member) }
            }
            access.setMembers(registration.model, members)
            if members.count != named {
                let keys = members.map { $0.persistentModelID.primaryKey }
                baseline[relationship.name] = relationship.isToMany ? .array(keys) : keys.first
                pruned = true
            }
        }
        if pruned { registration.baseline = baseline }
        // It now holds its stored values, attributes and relationships alike.
        registration.settle()
    }

    /// Registers (or refreshes, as a fetch does) the models of `type` from rows a store sent along.
    private func registerPreloaded<T: PersistentModel>(_ type: T.Type, _ rows: [DefaultSnapshot]) throws {
        for row in rows { let _: T = try materialize(row) }
    }

    /// The rows a fetch selects, and the related rows the store sent along with them
    /// (``DataStoreFetchResult/relatedSnapshots``), asked for when `T` has relationships: the
    /// rows ``resolvePendingRelationships(preloaded:)`` then takes instead of fetching by key.
    /// A store that prefers the context to filter or sort is answered as ``fetchSnapshots(_:from:)``
    /// does, without related rows.
    /// - Throws: what the store throws; ``DataStoreError/Code/corruptStore`` when a related row is
    ///   under another identifier than its own (before any model is registered).
    func fetchSnapshotsAndRelated<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, from store: any DataStore) throws
        -> (snapshots: [DefaultSnapshot], related: PreloadedRows) {
        guard container.schema.entity(for: T.self)?.relationships.isEmpty == false else {
            return (try fetchSnapshots(descriptor, from: store), PreloadedRows())
        }
        func run<S: DataStore>(_ store: S) throws -> ([DefaultSnapshot], [PersistentIdentifier: DefaultSnapshot]) {
            let result = try store.fetch(DataStoreFetchRequest(descriptor: descriptor, editingState: editingState,
                                                               includesRelatedSnapshots: true))
            // As in fetchSnapshots(_:from:): this package's stores answer in DefaultSnapshots, taken as they are.
            if S.Snapshot.self == DefaultSnapshot.self {
                return (unsafeBitCast(result.fetchedSnapshots, to: [DefaultSnapshot].self),
                        unsafeBitCast(result.relatedSnapshots, to: [PersistentIdentifier: DefaultSnapshot].self))
            }
            func plain(_ snapshot: S.Snapshot) -> DefaultSnapshot {
                DefaultSnapshot(persistentIdentifier: snapshot.persistentIdentifier, values: snapshot.values)
            }
            return (result.fetchedSnapshots.map(plain), result.relatedSnapshots.mapValues(plain))
        }
        let snapshots: [DefaultSnapshot], related: [PersistentIdentifier: DefaultSnapshot]
        do {
            (snapshots, related) = try run(store)
        } catch let error as DataStoreError where error.code == .preferInMemoryFilter || error.code == .preferInMemorySort {
            return (try fetchSnapshots(descriptor, from: store), PreloadedRows())
        }
        if let (key, row) = related.first(where: { $0.key != $0.value.persistentIdentifier }) {
            throw DataStoreError(.corruptStore,
                "The store sent the row of \(row.persistentIdentifier) as the related row of \(key) with a fetch of "
                + "\(T.entityName); a related row must be under its own identifier. No model was registered.")
        }
        return (snapshots, PreloadedRows(storeIndex: try container.storeIndex(for: T.self), rows: related))
    }

    /// Fetches and registers the stored models of `type` with these primary keys, in one store
    /// fetch (``storedSnapshots(_:primaryKeys:)``), and returns the identifiers found.
    private func loadModels<T: PersistentModel>(_ type: T.Type, primaryKeys: [SnapshotValue]) throws -> Set<PersistentIdentifier> {
        var found = Set<PersistentIdentifier>()
        for snapshot in try storedSnapshots(T.self, primaryKeys: primaryKeys) {
            let _: T = try materialize(snapshot)
            found.insert(snapshot.persistentIdentifier)
        }
        return found
    }

    /// The stored rows of `type` with these primary keys, in one store fetch
    /// (`keys.contains($0.id)`, which stores answer from their key index).
    func storedSnapshots<T: PersistentModel>(_ type: T.Type, primaryKeys: [SnapshotValue]) throws -> [DefaultSnapshot] {
        let decoder = SnapshotDecoder()
        let ids = primaryKeys.compactMap { try? decoder.decode(T.ID.self, from: $0) }
        guard !ids.isEmpty else { return [] }
        let idKeyPath = Self.idKeyPath(of: T.self)
        let byIDs = Predicate<T> { model in
            PredicateExpressions.build_contains(
                PredicateExpressions.build_Arg(ids),
                PredicateExpressions.build_KeyPath(root: model, keyPath: idKeyPath))
        }
        let store = try container.stores[container.storeIndex(for: T.self)]
        return try fetchSnapshots(FetchDescriptor<T>(predicate: byIDs), from: store)
    }

    /// The listed key path of `id`, `==` to `\Trip.id`, so that stores look rows up by key
    /// (`\T.id` in generic code is another key path, through the protocol).
    static func idKeyPath<T: PersistentModel>(of type: T.Type) -> any KeyPath<T, T.ID> & Sendable {
        guard let listed = ModelAttributes.of(T.self).keyPath(named: "id") as? KeyPath<T, T.ID> else { return \T.id }
        // Key paths are immutable; `Sendable` is a marker, so the layout is the same.
        return unsafeBitCast(listed, to: (any KeyPath<T, T.ID> & Sendable).self)
    }

    // MARK: Pending changes

    /// Brings relationships in order before a save (``save()`` calls it): inserts related models
    /// the context does not hold yet (as SwiftData inserts them with their owner), sets the
    /// inverse of every relationship changed since the last save, and applies the delete rules
    /// of deleted models (cascades are deleted in the same save, nullified inverses updated).
    /// - Throws: ``ModelContextError/Code/modelOfAnotherContext`` when a relationship holds a
    ///   model another context tracks (of this container or another), or another instance of a
    ///   model this context holds; ``ModelContextError/Code/deletedModel`` when it holds a model
    ///   deleted from its store by a save; ``ModelContextError/Code/deleteDenied`` when a
    ///   deleted model is still related through a ``DeleteRule/deny`` relationship. The models
    ///   are then as they were (but for related new models now inserted), and so is the store.
    ///
    /// With an ``undoManager``, it then closes an undo group with the changes made since the
    /// last one.
    ///
    /// Inverses are set here (and so at each save), not as each change is made as in SwiftData:
    /// until then `task.project = project` does not show in `project.tasks`. A change made
    /// after this call is the one kept, from either end: `project.tasks.removeAll { $0 === task }`
    /// after it unsets `task.project` at the save. Of two changes to one relationship made from
    /// its two ends between two calls (`b.tasks.append(task)`, then `task.project = a`), which
    /// one wins depends on the order the context walks its models, not on the order they were
    /// made: change one end, or call this between the two.
    /// - Complexity: O(*c*) relationship reads for the *c* models that may have changed.
    public func processPendingChanges() throws {
        // Nothing to do for a schema without relationships, and no pass over every model.
        if container.schema.entities.contains(where: { !$0.relationships.isEmpty }) {
            if let refusal = insertRelatedModels().first { throw refusal }
            try bringRelationshipsInStep()
        }
        closeUndoGroup()
    }

    /// Sets the inverses of the relationships changed since the last pass, applies the delete
    /// rules, and notes what each relationship holds now (``Registration/relationshipsInStep``):
    /// a change made after this pass, from either end, is the one the next pass keeps.
    /// - Throws: what ``applyDeleteRules()`` throws; nothing is noted then, so the next pass
    ///   looks at the same changes again.
    func bringRelationshipsInStep() throws {
        keepInversesInStep()
        try applyDeleteRules()
        for registration in registrations.mayHaveChanged(inOrder: false) where !registration.entity.relationships.isEmpty {
            noteRelationshipsInStep(registration)
        }
    }

    /// Notes what each relationship of a registration's model holds now, as in step with its inverse.
    func noteRelationshipsInStep(_ registration: Registration) {
        var members: [String: [PersistentIdentifier]] = [:]
        for relationship in registration.entity.relationships where relationship.inverse != nil {
            members[relationship.name] = registration.entity.relationshipAccess[relationship.name]?
                .members(registration.model).map(\.persistentModelID) ?? []
        }
        registration.relationshipsInStep = members
    }

    /// Inserts every model reachable through relationships from `start` (every model the
    /// context may see changed when `nil`) that the context does not hold, and returns why it
    /// left out the members it must not insert: a model another context tracks (it would be
    /// copied into this context's store, or tracked twice), another instance of a model this
    /// context holds, a model deleted from its store.
    ///
    /// A new model whose only link is its own relationship (`child.parent = parent`, or
    /// `folder.items.append(item)` with only `parent` or `item` inserted) is found too: the
    /// setter told the other model's backing.
    @discardableResult
    func insertRelatedModels(from start: [Registration]? = nil) -> [ModelContextError] {
        // Without a start: what changed, and stored models that new models now refer to
        // through their to-one (settled, these are not among what changed).
        let referred = start == nil ? registrations.touches.drainReferred().compactMap { registrations[$0] } : []
        var pending = ((start ?? registrations.mayHaveChanged()) + referred).filter {
            $0.state != .deleted && (!$0.entity.relationships.isEmpty || !$0.backing.referrers.isEmpty)
        }
        var refusals: [ModelContextError] = []
        while let registration = pending.popLast() {
            for relationship in registration.entity.relationships {
                let access = registration.entity.relationshipAccess[relationship.name]
                for member in access?.members(registration.model) ?? [] {
                    // Deleted before any save, held here by hand (its own to-one never named
                    // this model, so the delete did not take it out): it leaves, as a delete's
                    // nullify rule would have it.
                    if wasDeletedWhileNew(member) {
                        access?.remove(registration.model, member)
                        continue
                    }
                    if let refused = insertRelated(member, in: relationship, of: registration, into: &pending) {
                        refusals.append(refused)
                    }
                }
            }
            for referrer in newReferrers(of: registration) {
                if let refused = insertRelated(referrer.model, in: referrer.relationship, of: referrer.registration, asReferrer: true,
                                               into: &pending) {
                    refusals.append(refused)
                }
            }
        }
        return refusals
    }

    /// Whether `model` is a new model this context deleted since its last save, and holds no
    /// more (an undo may have registered it again).
    private func wasDeletedWhileNew(_ model: any PersistentModel) -> Bool {
        guard !deletedWhileNew.isEmpty, let deleted = deletedWhileNew[ObjectIdentifier(model)], deleted.model === model else { return false }
        return registrations[model.persistentModelID]?.model !== model
    }

    /// Inserts `member` of `relationship` of `owner`'s model unless the context holds it, adding
    /// its registration to `pending`; returns why it must not be inserted, if it must not.
    /// With `asReferrer`, `member` is a model whose own to-one `relationship` holds `owner`'s model.
    private func insertRelated(_ member: any PersistentModel, in relationship: Schema.Relationship, of owner: Registration,
                               asReferrer: Bool = false, into pending: inout [Registration]) -> ModelContextError? {
        let id = member.persistentModelID
        if let known = registrations[id], known.model === member { return nil }
        if let refusal = refusal(of: member, in: relationship, of: owner, asReferrer: asReferrer) { return refusal }
        insertAny(member)
        if let inserted = registrations[id], inserted.model === member { pending.append(inserted) }
        return nil
    }

    /// The models not held by the context whose relationship holds `registration`'s
    /// `@Model` model (its backing's referrers that still refer to it), each with that
    /// relationship, as seen from the referrer's side (`registration` stands for the owner in
    /// refusal messages).
    private func newReferrers(of registration: Registration) -> [(model: any PersistentModel, relationship: Schema.Relationship,
                                                                  registration: Registration)] {
        let backing = registration.backing
        guard !backing.referrers.isEmpty else { return [] }
        var found: [(model: any PersistentModel, relationship: Schema.Relationship, registration: Registration)] = []
        for (key, weak) in backing.referrers {
            guard let referrer = weak.model else {
                backing.referrers[key] = nil
                continue
            }
            if let known = registrations[referrer.persistentModelID], known.model === referrer { continue }
            if wasDeletedWhileNew(referrer) { continue }
            guard let entity = container.schema.entity(named: type(of: referrer).entityName),
                  let relationship = entity.relationships.first(where: { relationship in
                      entity.relationshipAccess[relationship.name]?.members(referrer)
                          .contains(where: { $0 === registration.model }) == true
                  }) else { continue }
            // A to-many owner that is another instance of a model this context holds is an
            // upsert's inserted instance, whose members the held instance took at its save: the
            // held one is the owner now. (A to-one referrer of that kind is still refused.)
            if relationship.isToMany, registrations[referrer.persistentModelID] != nil { continue }
            found.append((referrer, relationship, registration))
        }
        return found
    }

    /// Why a model this context does not hold must not enter `relationship` of `owner`'s model,
    /// or `nil` when it is new to every context and may be inserted with it. With `asReferrer`,
    /// `relationship` is `member`'s own to-one, which holds `owner`'s model: the messages name it so.
    private func refusal(of member: any PersistentModel, in relationship: Schema.Relationship,
                         of owner: Registration, asReferrer: Bool = false) -> ModelContextError? {
        let id = member.persistentModelID
        let ownerID = owner.model.persistentModelID
        // "<lead> <what is wrong with `member`>", naming the relationship of the model that has it.
        let lead = asReferrer
            ? "\(id)'s relationship `\(relationship.name)` holds \(ownerID), which this context holds; \(id) is a model"
            : "\(ownerID)'s relationship `\(relationship.name)` holds \(id), a model"
        let remedy = asReferrer
            ? "Set its `\(relationship.name)` to nil or to another model"
            : "Remove it from the relationship"
        let other = ModelOwner.of(member)
        let here = "this ModelContext (\(editingID)\(author.map { ", author '\($0)'" } ?? ""))"
        if let other, other.context == nil {
            let store = other.container === container ? "this container's store" : "the store of another container (\(Self.describeStores(of: other.container)))"
            return ModelContextError(.deletedModel,
                "\(lead) which was deleted from \(store) and saved; saving it would store the deleted model "
                + "again. \(remedy), or insert a new model; nothing was saved.")
        }
        if let other, other.container !== container {
            return ModelContextError(.modelOfAnotherContext,
                "\(lead) which \(other.contextDescription) of another container tracks (its stores: "
                + "\(Self.describeStores(of: other.container)); this context's: \(Self.describeStores(of: container))); saving it here "
                + "would copy it into this container's store and leave one instance tracked by two contexts. Relate a model of "
                + "this container (fetch or insert it in \(here)); nothing was saved.")
        }
        if let held = registrations[id], held.model !== member {
            let whose = other.map { "\($0.contextDescription)'s instance" } ?? "an instance this context does not track"
            return ModelContextError(.modelOfAnotherContext,
                "\(lead) of which \(here) holds another instance (this one is \(whose)); saving it would leave the two "
                + "instances disagreeing. Relate the instance this context holds (context.model(for:)); nothing was saved.")
        }
        if let other, other.context != editingID {
            return ModelContextError(.modelOfAnotherContext,
                "\(lead) which \(other.contextDescription) tracks; relating it here would leave one instance "
                + "tracked by two contexts. Relate this context's instance (context.model(for: \(id))); nothing was saved.")
        }
        return nil
    }

    /// A container's stores, as messages name them.
    static func describeStores(of container: ModelContainer?) -> String {
        guard let container else { return "a container no longer open" }
        func describe<S: DataStore>(_ store: S) -> String { "'\(store.configuration.name)' (\(S.self) \(store.identifier))" }
        return container.stores.map { describe($0) }.joined(separator: ", ")
    }

    /// For each relationship changed since inverses were last brought in step (its
    /// ``Registration/relationshipsInStep``, else its model's last save, or since it was inserted),
    /// adds the model to the inverse of each new member and removes it from each former one. A
    /// to-one inverse that named another model is taken from it. Deleted models too: a member
    /// taken out before the delete is no longer the delete rule's business.
    ///
    /// Models are taken in the order the context came to know them, not the order the changes
    /// were made: of two changes made to one relationship from its two ends between two passes,
    /// the pass keeps one by that order (see ``processPendingChanges()``).
    private func keepInversesInStep() {
        // A settled model's relationships are as stored: nothing to bring in step.
        for registration in registrations.mayHaveChanged() where !registration.entity.relationships.isEmpty {
            for relationship in registration.entity.relationships {
                guard let inverseName = relationship.inverse,
                      let access = registration.entity.relationshipAccess[relationship.name],
                      let destination = container.schema.entity(named: relationship.destination),
                      let inverse = destination.relationships.first(where: { $0.name == inverseName }),
                      let inverseAccess = destination.relationshipAccess[inverseName] else { continue }
                let members = access.members(registration.model)
                let before = registration.relationshipsInStep?[relationship.name]
                    ?? relationship.identifiers(in: registration.baseline ?? [:])
                let beforeSet = Set(before)
                let nowSet = Set(members.map(\.persistentModelID))
                for member in members where !beforeSet.contains(member.persistentModelID) {
                    if !inverse.isToMany, let previous = inverseAccess.members(member).first, previous !== registration.model {
                        access.remove(previous, member)
                    }
                    inverseAccess.add(member, registration.model)
                }
                for id in before where !nowSet.contains(id) {
                    guard let former = registrations[id]?.model else { continue }
                    inverseAccess.remove(former, registration.model)
                }
            }
        }
    }

    /// Takes a new model deleted before it was saved out of the inverses of its relationships
    /// (the nullify the save would apply to a stored one), and out of its to-one members'
    /// referrers: the next save's walk over related models would otherwise insert it again.
    func takeOutOfInverses(_ model: any PersistentModel, _ entity: Schema.Entity) {
        forgetAsReferrer(model, entity)
        for relationship in entity.relationships {
            guard let inverseName = relationship.inverse,
                  let inverseAccess = container.schema.entity(named: relationship.destination)?.relationshipAccess[inverseName]
            else { continue }
            for member in members(of: model, relationship, in: entity) { inverseAccess.remove(member, model) }
        }
    }

    /// Cascades deletions, refuses a denied one, and nullifies inverses.
    func applyDeleteRules() throws {
        let deleted = registrations.mayHaveChanged(inOrder: false).filter { $0.state == .deleted }.sorted { $0.deleteOrder < $1.deleteOrder }
        guard deleted.contains(where: { !$0.entity.relationships.isEmpty }) else { return }
        // Everything a cascade reaches, before changing anything, so that a denial changes nothing.
        var deleting = Set(deleted.map { $0.model.persistentModelID })
        var order: [any PersistentModel] = deleted.map(\.model)
        var next = 0
        while next < order.count {
            let model = order[next]
            next += 1
            guard let entity = container.schema.entity(named: model.persistentModelID.entityName) else { continue }
            for relationship in entity.relationships where relationship.deleteRule == .cascade {
                for member in ownMembers(of: model, relationship, in: entity) where deleting.insert(member.persistentModelID).inserted {
                    order.append(member)
                }
            }
        }
        for model in order {
            guard let entity = container.schema.entity(named: model.persistentModelID.entityName) else { continue }
            for relationship in entity.relationships where relationship.deleteRule == .deny {
                if let kept = ownMembers(of: model, relationship, in: entity).first(where: { !deleting.contains($0.persistentModelID) }) {
                    throw ModelContextError(.deleteDenied,
                        "\(model.persistentModelID) cannot be deleted: its relationship `\(relationship.name)` (delete rule deny) "
                        + "still holds \(kept.persistentModelID). Remove it from the relationship or delete it first; nothing was saved.")
                }
            }
        }
        for model in order.dropFirst(deleted.count) { deleteAny(model) }
        for model in order {
            guard let entity = container.schema.entity(named: model.persistentModelID.entityName) else { continue }
            for relationship in entity.relationships where relationship.deleteRule == .nullify {
                guard let inverseName = relationship.inverse,
                      let inverseAccess = container.schema.entity(named: relationship.destination)?.relationshipAccess[inverseName]
                else { continue }
                for member in members(of: model, relationship, in: entity) where !deleting.contains(member.persistentModelID) {
                    inverseAccess.remove(member, model)
                }
            }
        }
    }

    /// The models a relationship of a deleted model holds now (those it held before were
    /// taken out of their inverses by ``keepInversesInStep()``).
    private func members(of model: any PersistentModel, _ relationship: Schema.Relationship, in entity: Schema.Entity) -> [any PersistentModel] {
        entity.relationshipAccess[relationship.name]?.members(model) ?? []
    }

    /// The members of a deleted model's relationship that are its own, for its cascade and deny
    /// rules: with a declared inverse, those whose inverse names the model. After a pass the two
    /// ends agree, but for a model with unsaved changes, which a fetch leaves as it is, its
    /// relationships too: a member another context moved elsewhere and saved names its new owner,
    /// as the store does, and deleting or keeping the stale owner is none of its business.
    private func ownMembers(of model: any PersistentModel, _ relationship: Schema.Relationship, in entity: Schema.Entity)
        -> [any PersistentModel] {
        let members = members(of: model, relationship, in: entity)
        guard !members.isEmpty, let inverseName = relationship.inverse,
              let inverseAccess = container.schema.entity(named: relationship.destination)?.relationshipAccess[inverseName]
        else { return members }
        return members.filter { member in inverseAccess.members(member).contains { $0 === model } }
    }

    private func deleteAny(_ model: any PersistentModel) {
        func open<T: PersistentModel>(_ model: T) { delete(model) }
        open(model)
    }

    private func insertAny(_ model: any PersistentModel) {
        func open<T: PersistentModel>(_ model: T) { insert(model) }
        open(model)
    }
}
