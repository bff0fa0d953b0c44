/// What happens to related models when a model is deleted: SwiftData's
/// `Schema.Relationship.DeleteRule`.
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// The related models stay; their inverse stops naming the deleted model (the default).
    case nullify
    /// The related models are deleted too, in the same save.
    case cascade
    /// The save throws ``ModelContextError/Code/deleteDenied`` while any model is related, and
    /// changes nothing.
    case deny
    /// Nothing is done: the related models keep naming the deleted one, and the context drops
    /// such dangling references when it loads them.
    case noAction
}

/// One relationship of a model, as `@Relationship` (or its absence, SwiftData's defaults) says
/// it: made by ``SchemaProperty``'s `relationship` and `attribute` builders for a property whose
/// value is a model, an optional model or an array of models.
///
/// A to-one relationship is an optional `var` of a model type (`var livingAccommodation:
/// LivingAccommodation?`), a to-many one a `var` array of one (`var bucketList: [BucketListItem]`).
/// The inverse, when there is one, is said on either side or both (or inferred where there is
/// exactly one candidate); the context keeps both sides in step at
/// ``ModelContext/processPendingChanges()`` (called by every save).
///
/// A snapshot holds a relationship under its property name as primary keys of the destination
/// entity: a to-one as the key (absent or ``SnapshotValue/null`` when `nil`), a to-many as an
/// ``SnapshotValue/array(_:)`` of keys in the array's order. ``Schema/Relationship`` tells a
/// store the destination entity.
struct RelationshipMetadata<Model: PersistentModel>: @unchecked Sendable {
    // @unchecked: key paths are immutable, the closures capture only key paths and metatypes.
    let keyPath: any PartialKeyPath<Model> & Sendable
    let destination: any PersistentModel.Type
    let isToMany: Bool
    let deleteRule: DeleteRule
    /// The inverse key path, on the destination type.
    let inverse: AnyKeyPath?
    let access: RelationshipAccess
    /// The stored name.
    let name: String
    /// The fewest related models a save accepts (`@Relationship(minimumModelCount:)`); `nil` or 0
    /// for no bound.
    let minimumModelCount: Int?
    /// The most related models a save accepts; `nil` or 0 for no bound.
    let maximumModelCount: Int?
}

/// Reads and writes one relationship on a model of any type, through the user's own key path:
/// no raw memory. Each closure does nothing for a model or member of another type.
struct RelationshipAccess: @unchecked Sendable {
    // @unchecked: the closures capture only a key path, which is immutable.
    /// The related models, in order.
    let members: (any PersistentModel) -> [any PersistentModel]
    /// Sets the related models (the first for a to-one, `nil` when there is none).
    let setMembers: (any PersistentModel, [any PersistentModel]) -> Void
    /// Adds a member if it is not there (a to-one is replaced).
    let add: (any PersistentModel, any PersistentModel) -> Void
    /// Removes a member if it is there (a to-one becomes `nil` only if it was that member).
    let remove: (any PersistentModel, any PersistentModel) -> Void

    static func toOne<Model: PersistentModel, Destination: PersistentModel>(
        _ keyPath: ReferenceWritableKeyPath<Model, Destination?>
    ) -> RelationshipAccess {
        RelationshipAccess(
            members: { owner in (owner as? Model)?[keyPath: keyPath].map { [$0] } ?? [] },
            setMembers: { owner, members in
                guard let owner = owner as? Model else { return }
                // A loop, not `members.lazy.compactMap { … }.first`: that chain runs unspecialized
                // in the standard library, about half the cost of loading a to-one (callgrind).
                var first: Destination?
                for member in members {
                    if let member = member as? Destination {
                        first = member
                        break
                    }
                }
                owner[keyPath: keyPath] = first
            },
            add: { owner, member in
                guard let owner = owner as? Model, let member = member as? Destination,
                      owner[keyPath: keyPath] !== member else { return }
                owner[keyPath: keyPath] = member
            },
            remove: { owner, member in
                guard let owner = owner as? Model, owner[keyPath: keyPath] === member as AnyObject else { return }
                owner[keyPath: keyPath] = nil
            })
    }

    static func toMany<Model: PersistentModel, Destination: PersistentModel>(
        _ keyPath: ReferenceWritableKeyPath<Model, [Destination]>
    ) -> RelationshipAccess {
        RelationshipAccess(
            members: { owner in (owner as? Model)?[keyPath: keyPath] ?? [] },
            setMembers: { owner, members in
                guard let owner = owner as? Model else { return }
                owner[keyPath: keyPath] = members.compactMap { $0 as? Destination }
            },
            add: { owner, member in
                guard let owner = owner as? Model, let member = member as? Destination,
                      !owner[keyPath: keyPath].contains(where: { $0 === member }) else { return }
                owner[keyPath: keyPath].append(member)
            },
            remove: { owner, member in
                guard let owner = owner as? Model, owner[keyPath: keyPath].contains(where: { $0 === member as AnyObject }) else { return }
                owner[keyPath: keyPath].removeAll { $0 === member as AnyObject }
            })
    }

    /// An optional to-many relationship (`[Stop]?`): `nil` reads as empty; every write sets an
    /// array.
    static func toMany<Model: PersistentModel, Destination: PersistentModel>(
        _ keyPath: ReferenceWritableKeyPath<Model, [Destination]?>
    ) -> RelationshipAccess {
        RelationshipAccess(
            members: { owner in (owner as? Model)?[keyPath: keyPath] ?? [] },
            setMembers: { owner, members in
                guard let owner = owner as? Model else { return }
                owner[keyPath: keyPath] = members.compactMap { $0 as? Destination }
            },
            add: { owner, member in
                guard let owner = owner as? Model, let member = member as? Destination else { return }
                let members = owner[keyPath: keyPath] ?? []
                guard !members.contains(where: { $0 === member }) else { return }
                owner[keyPath: keyPath] = members + [member]
            },
            remove: { owner, member in
                guard let owner = owner as? Model, let members = owner[keyPath: keyPath],
                      members.contains(where: { $0 === member as AnyObject }) else { return }
                owner[keyPath: keyPath] = members.filter { $0 !== member as AnyObject }
            })
    }
}
