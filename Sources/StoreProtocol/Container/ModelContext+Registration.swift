import Foundation

/// What a context knows of each model it tracks.
extension ModelContext {
    /// What the context knows of one model: a ``TypedRegistration``, which holds the model
    /// through its own type (made by ``make(model:entity:baseline:state:order:)``).
    class Registration {
        enum State { case inserted, persisted, deleted }
        /// The model (``TypedRegistration`` holds it).
        var model: any PersistentModel { preconditionFailure("a Registration is a TypedRegistration") }
        /// The model's `persistentModelID`, made with ``entity``'s name (the model type's
        /// `entityName`, which the type would look up under a lock) and without opening ``model``.
        var identifier: PersistentIdentifier { preconditionFailure("a Registration is a TypedRegistration") }
        let entity: Schema.Entity
        /// The per-instance state of the model, whose changed bits say what changed since the
        /// context last settled it.
        let backing: ModelBacking
        /// Whether the model held its ``baseline`` when its changed bits were last cleared.
        var heldBaselineWhenSettled = false
        /// The values last saved or fetched; `nil` for a model inserted and not yet saved.
        /// Setting it forgets ``relationshipsInStep``: the model's relationships are then as
        /// its baseline says, and so are their inverses.
        var baseline: [String: SnapshotValue]? {
            didSet { relationshipsInStep = nil }
        }
        /// The members each relationship held when the context last brought inverses in step
        /// (``ModelContext/processPendingChanges()``) since the model took its ``baseline``;
        /// `nil` when it has not: the baseline's relationships are what the inverses agree with.
        /// A change made after is what the next pass brings in step, so that the change made
        /// last wins, from either end; the save still writes what differs from the baseline.
        var relationshipsInStep: [String: [PersistentIdentifier]]?
        var state: State
        /// Whether the model was inserted as a new model whose to-many came to hold a model the
        /// context holds (``ModelContext/insertNewlyRelated(_:asOwnerOfHeldModel:)``).
        var insertedAsOwnerOfHeldModel = false
        /// When the model became known (inserted or fetched): the order of inserts and updates.
        let order: Int
        /// When the model was deleted: the order of deletes.
        var deleteOrder = 0

        /// A registration of `model`, holding it through its own type.
        static func make(
            model: any PersistentModel, entity: Schema.Entity, baseline: [String: SnapshotValue]?, state: State, order: Int
        ) -> Registration {
            func make<Model: PersistentModel>(_ model: Model) -> Registration {
                TypedRegistration(model: model, entity: entity, baseline: baseline, state: state, order: order)
            }
            return make(model)
        }

        fileprivate init(backing: ModelBacking, entity: Schema.Entity, baseline: [String: SnapshotValue]?, state: State, order: Int) {
            self.entity = entity
            self.backing = backing
            self.baseline = baseline
            self.state = state
            self.order = order
        }

        func currentValues() throws -> [String: SnapshotValue] {
            let values: [String: SnapshotValue]
            do { values = try model.storedValues() } catch let error as DataStoreError where error.code == .unsupportedValue {
                // A value no store holds (one nested too deep) is refused with the code every
                // store gives for such a value, as the docs promise.
                throw DataStoreError(.unsupportedValue, "\(model.persistentModelID) could not be saved: \(error.message)",
                                     underlyingError: error)
            } catch {
                throw ModelContextError(.unencodableModel, "\(model.persistentModelID) could not be encoded: \(error).")
            }
            if let unlisted = values.keys.first(where: { !isStoredName($0) }) {
                throw ModelContextError(.unencodableModel,
                    "\(entity.modelType)'s storedValues() gives `\(unlisted)`, which its schemaMetadata does not list "
                    + "among its properties; list it there, or leave it out of storedValues() if it is not stored.")
            }
            return values
        }

        /// Whether `name` is one of the entity's attributes or relationships. For an entity of a
        /// few properties, compared with each name: a hashed lookup hashes `name`, about 350
        /// instructions, where comparing two short strings that differ costs a few dozen; a save
        /// asks it of every name of every model it encodes (callgrind).
        private func isStoredName(_ name: String) -> Bool {
            let attributes = entity.attributeNames
            let relationships = entity.relationships
            guard attributes.count + relationships.count <= 16 else { return entity.attributeNameSet.contains(name) }
            return attributes.contains(name) || relationships.contains { $0.name == name }
        }

        /// Whether nothing but this registration holds the model: then no one can change it.
        var isHeldOnlyByTheContext: Bool { preconditionFailure("a Registration is a TypedRegistration") }

        /// Whether the model is stored and cannot have changed since it held its stored values:
        /// its changed bits were cleared since, and no property was set.
        var isSettled: Bool { state == .persisted && heldBaselineWhenSettled && !backing.hasChanges }

        /// The model holds its ``baseline`` now: from here on, a property set (its changed bit)
        /// marks it changed.
        func settle() {
            backing.settle()
            heldBaselineWhenSettled = true
        }

        /// The attributes and relationships whose values differ from the baseline: for a model
        /// settled since it held its baseline, only among the properties set since (`changed`, its
        /// changed bits); for one not settled since (given other values by an upsert or a
        /// collision), among all.
        /// - Complexity: a comparison of the properties set (all properties for a model not
        ///   settled since).
        func changedAttributes(_ current: [String: SnapshotValue], setSince changed: PropertyBitSet?) -> [String] {
            let baseline = baseline ?? [:]
            guard let changed, heldBaselineWhenSettled else {
                return DefaultSnapshot(persistentIdentifier: model.persistentModelID, values: current).changedAttributes(from: baseline)
            }
            let names = entity.propertyNames
            return changed.members.compactMap { index in
                // Absent and null are the same value (a nil optional), as in changedAttributes(from:).
                guard index < names.count, entity.attributeNameSet.contains(names[index]),
                      !(current[names[index]] ?? .null).isIdentical(to: baseline[names[index]] ?? .null) else { return nil }
                return names[index]
            }
        }

        /// Whether a persisted model's values differ from its baseline.
        /// - Complexity: O(1) for a settled model; one encode and a comparison of the properties
        ///   set otherwise.
        func isDirty() throws -> Bool {
            if isSettled { return false }
            guard state == .persisted, baseline != nil else { return state != .persisted }
            return !changedAttributes(try currentValues(), setSince: backing.changedProperties).isEmpty
        }
    }
}

/// A registration holding its model through the model's own type: `isKnownUniquelyReferenced`
/// needs a class type, and through `AnyObject` a debug build always answers "not unique". One
/// object per registered model (a holder object beside the registration was one allocation more
/// for each model a context fetches or inserts).
final class TypedRegistration<Model: PersistentModel>: ModelContext.Registration {
    private var typed: Model

    init(model: Model, entity: Schema.Entity, baseline: [String: SnapshotValue]?, state: State, order: Int) {
        typed = model
        super.init(backing: model.persistentBackingData, entity: entity, baseline: baseline, state: state, order: order)
    }

    override var model: any PersistentModel { typed }
    override var identifier: PersistentIdentifier {
        PersistentIdentifier(entityName: entity.name, primaryKey: PersistentIdentifier.primaryKey(typed.id))
    }
    override var isHeldOnlyByTheContext: Bool { isKnownUniquelyReferenced(&typed) }
}
