import Foundation

/// Unique-constraint upserts that the context makes itself: an inserted model whose unique values
/// match a model this context holds, or a stored model with relationships.
///
/// A store turns such an insert into an update of the stored row (``DataStore/save(_:)``), but it
/// cannot keep what only the context knows in step: the instance the context holds would stop
/// standing for the row, and the models related to the stored row would still name it as it was.
/// So before sending, the context finds the stored model (the instance it holds, or the row a
/// fetch by the unique values finds), gives it the inserted model's values, relationships
/// included, points every model that named the inserted one at it, and forgets the inserted
/// instance. Inverses are then brought in step as for any change: the stored model's former
/// related models stay stored and no longer name it (as if removed from the relationship by
/// hand; a cascade rule does not delete them), its new ones name it.
extension ModelContext {
    /// Merges every inserted model that collides on a unique constraint with a model this
    /// context holds (stored, or inserted earlier in this save), or, for an entity with
    /// relationships, with a stored row, into that model.
    /// Returns whether it merged any (inverses and delete rules then need another pass).
    /// - Complexity: O(*r*) for *r* registered models of the inserted models' entities, plus one
    ///   store fetch per inserted model of an entity with both unique constraints and
    ///   relationships that the context does not find among them.
    func mergeInsertsIntoStoredModels() throws -> Bool {
        let inserts = registrations.mayHaveChanged().filter { $0.state == .inserted && !$0.entity.uniqueConstraints.isEmpty }
        guard !inserts.isEmpty else { return false }
        // The unique values of the models held, as this save leaves them.
        let entities = Set(inserts.map(\.entity.name))
        var held: [String: [[SnapshotValue]: Registration]] = [:]
        func hold(_ registration: Registration, values: [String: SnapshotValue]) {
            for index in registration.entity.uniqueConstraints.indices {
                guard let key = registration.entity.uniqueKey(index, in: values) else { continue }
                held["\(registration.entity.name)#\(index)", default: [:]][key] = registration
            }
        }
        for (_, registration) in registrations.byIdentifier where registration.state == .persisted && entities.contains(registration.entity.name) {
            guard let values = registration.isSettled ? registration.baseline : try registration.currentValues() else { continue }
            hold(registration, values: values)
        }
        var merged = false
        for insert in inserts {
            let values = try insert.currentValues()
            let keys = insert.entity.uniqueConstraints.indices.map { insert.entity.uniqueKey($0, in: values) }
            var target = keys.indices.lazy.compactMap { index in keys[index].flatMap { held["\(insert.entity.name)#\(index)"]?[$0] } }.first
            if target == nil, !insert.entity.relationships.isEmpty {
                target = try storedModel(matching: values, of: insert)
                if let target { hold(target, values: try target.currentValues()) }
            }
            guard let target, target !== insert else {
                // A later insert of the same values in this save updates this one: the last wins.
                hold(insert, values: values)
                continue
            }
            try merge(insert, into: target)
            merged = true
        }
        return merged
    }

    /// Gives each model this context holds the values of the instances inserted since with its
    /// id (SwiftData's upsert by id), the last inserted last: the held instance stays tracked.
    /// A held model deleted since, or one whose id changed, takes nothing (the insert is dropped).
    func mergeSecondInstances() throws {
        let inserts = secondInstances
        secondInstances.removeAll()
        for (index, insert) in inserts.enumerated() {
            guard let target = registrations[insert.model.persistentModelID], target.model !== insert.model,
                  target.state != .deleted else { continue }
            do { try merge(insert, into: target) } catch {
                secondInstances = Array(inserts[index...])
                throw error
            }
        }
    }

    /// The registration of the stored model whose unique values `values` match (registering and
    /// loading it with its related models), or `nil` when none is stored or the one stored is
    /// changed or deleted by this save (the insert then stays an insert).
    private func storedModel(matching values: [String: SnapshotValue], of insert: Registration) throws -> Registration? {
        func find<T: PersistentModel>(_ type: T.Type) throws -> Registration? {
            guard let snapshot = try storedSnapshot(T.self, matchingUniqueValuesOf: values, entity: insert.entity),
                  // Held, but as another value or deleted by this save: no collision.
                  registrations[snapshot.persistentIdentifier] == nil else { return nil }
            let _: T = try materialize(snapshot)
            try resolvePendingRelationships()
            return registrations[snapshot.persistentIdentifier]
        }
        return try find(insert.entity.modelType)
    }

    /// The stored row whose values of one of `entity`'s unique constraints are those in
    /// `values`, if any: one store fetch per constraint until one finds it.
    func storedSnapshot<T: PersistentModel>(
        _ type: T.Type, matchingUniqueValuesOf values: [String: SnapshotValue], entity: Schema.Entity
    ) throws -> DefaultSnapshot? {
        let store = try container.stores[container.storeIndex(for: T.self)]
        for (index, constraint) in entity.uniqueConstraints.enumerated() {
            guard let key = entity.uniqueKey(index, in: values),
                  let predicate = try Self.equalityPredicate(T.self, names: constraint, values: key) else { continue }
            var descriptor = FetchDescriptor<T>(predicate: predicate)
            descriptor.fetchLimit = 1
            if let snapshot = try fetchSnapshots(descriptor, from: store).first { return snapshot }
        }
        return nil
    }

    /// Gives `target` (a stored model) the values of `insert` but its id, relationships included;
    /// points every relationship that holds the inserted instance at `target`; and forgets the
    /// inserted instance, which keeps its values and is not saved again.
    private func merge(_ insert: Registration, into target: Registration) throws {
        var values = try insert.currentValues()
        values["id"] = try target.currentValues()["id"]
        try target.model.assignStoredValues(values)
        for relationship in target.entity.relationships {
            guard let access = target.entity.relationshipAccess[relationship.name] else { continue }
            let incoming = access.members(insert.model)
            // Former members let go of it here: the inverse pass would otherwise take their side
            // (a model inserted in this save has no stored relationships to compare with).
            if let inverse = relationship.inverse,
               let inverseAccess = container.schema.entity(named: relationship.destination)?.relationshipAccess[inverse] {
                for former in access.members(target.model) where !incoming.contains(where: { $0 === former }) {
                    inverseAccess.remove(former, target.model)
                }
            }
            access.setMembers(target.model, incoming)
        }
        let inserted = insert.model
        // A second instance with a held model's id (mergeSecondInstances) was never registered.
        if registrations[inserted.persistentModelID] === insert { registrations[inserted.persistentModelID] = nil }
        // Who can name the inserted model: a model changed since the last save (a new or
        // changed one: the inserted model is new), or one of its own related models.
        var naming = registrations.mayHaveChanged(inOrder: false)
        for relationship in target.entity.relationships {
            for member in target.entity.relationshipAccess[relationship.name]?.members(target.model) ?? [] {
                if let registration = registrations[member.persistentModelID] { naming.append(registration) }
            }
        }
        for registration in naming {
            for relationship in registration.entity.relationships where relationship.destination == target.entity.name {
                guard let access = registration.entity.relationshipAccess[relationship.name] else { continue }
                let members = access.members(registration.model)
                guard members.contains(where: { $0 === inserted }) else { continue }
                var seen = Set<ObjectIdentifier>()
                access.setMembers(registration.model, members.map { $0 === inserted ? target.model : $0 }.filter {
                    seen.insert(ObjectIdentifier($0)).inserted
                })
            }
        }
        registrations.unsettle(target.model.persistentModelID)
        target.heldBaselineWhenSettled = false
    }

    /// `names[0] == values[0] && names[1] == values[1] …` over `T`'s attributes, `nil` when an
    /// attribute's type is not `Equatable` (a predicate cannot compare it).
    /// - Throws: what ``SnapshotDecoder`` throws for a value that does not decode as its attribute.
    static func equalityPredicate<T: PersistentModel>(_ type: T.Type, names: [String], values: [SnapshotValue]) throws -> Predicate<T>? {
        typealias Comparison = (PredicateExpressions.Variable<T>) -> any StandardPredicateExpression<Bool>
        var comparisons: [Comparison] = []
        for (name, value) in zip(names, values) {
            guard let keyPath = ModelAttributes.of(T.self).keyPath(named: name),
                  let valueType = Swift.type(of: keyPath).valueType as? any (Equatable & Codable & Sendable).Type else { return nil }
            func compare<V: Equatable & Codable & Sendable>(_: V.Type) throws -> Comparison? {
                guard let typed = keyPath as? KeyPath<T, V> else { return nil }
                // Key paths are immutable; `Sendable` is a marker, so the layout is the same.
                let sendable = unsafeBitCast(typed, to: (any KeyPath<T, V> & Sendable).self)
                let constant = try SnapshotDecoder().decode(V.self, from: value)
                return { model in
                    PredicateExpressions.build_Equal(
                        lhs: PredicateExpressions.build_KeyPath(root: model, keyPath: sendable),
                        rhs: PredicateExpressions.build_Arg(constant))
                }
            }
            guard let comparison = try compare(valueType) else { return nil }
            comparisons.append(comparison)
        }
        guard !comparisons.isEmpty else { return nil }
        func and<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> any StandardPredicateExpression<Bool> {
            PredicateExpressions.build_Conjunction(lhs: lhs, rhs: rhs)
        }
        func conjunction(_ model: PredicateExpressions.Variable<T>) -> any StandardPredicateExpression<Bool> {
            var expression: any StandardPredicateExpression<Bool> = comparisons[0](model)
            for comparison in comparisons.dropFirst() {
                let next: any StandardPredicateExpression<Bool> = comparison(model)
                expression = and(expression, next)
            }
            return expression
        }
        // A predicate's builder returns one static type: the expression's, read from one built
        // on a variable of its own. The builder builds the same structure, so of the same type.
        func predicate<Expression: StandardPredicateExpression<Bool>>(_: Expression) -> Predicate<T>? {
            guard conjunction(PredicateExpressions.Variable<T>()) is Expression else { return nil }
            return Predicate<T> { model in conjunction(model) as! Expression }
        }
        return predicate(conjunction(PredicateExpressions.Variable<T>()))
    }
}
