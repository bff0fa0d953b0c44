import DataStores
import Foundation

/// The clock of one attribute's (or to-one relationship's) value on a replica.
struct ValueClock: Codable, Equatable, Sendable {
    /// When the value was written.
    var clock: HybridLogicalTimestamp
    /// ``ValueDigest`` of the value: a row whose value has another digest was changed since.
    var digest: UInt64
    /// The clock of the value this one replaced when it was stamped, `nil` for a first value: a
    /// value written on top of the other side's is not a conflict with it.
    var base: HybridLogicalTimestamp?
}

/// The clock of one member of a to-many relationship: whether it is a member, and since when.
struct MemberClock: Codable, Equatable, Sendable {
    var clock: HybridLogicalTimestamp
    var present: Bool
}

/// Everything a replica knows of when one model's parts were written: what a
/// ``SyncClockRecord`` holds.
struct ModelClocks: Codable, Equatable, Sendable {
    /// When this life of the model began (its insert); a re-insert after a deletion starts a new one.
    var incarnation: HybridLogicalTimestamp?
    /// Per attribute and to-one relationship name.
    var values: [String: ValueClock] = [:]
    /// Per to-many relationship (except those whose inverse is to-one, which follow it): per member
    /// (canonical JSON of its primary key).
    var members: [String: [String: MemberClock]] = [:]
    /// When the model was deleted; `nil` while it lives.
    var deleted: HybridLogicalTimestamp?
    /// The survivor of a unique-key merge this model was merged into (its primary key JSON).
    var mergedInto: String?

    /// The latest clock of any part of the live model.
    var latest: HybridLogicalTimestamp? {
        var latest = incarnation
        for clock in values.values where latest.map({ clock.clock > $0 }) ?? true { latest = clock.clock }
        for members in members.values {
            for member in members.values where latest.map({ member.clock > $0 }) ?? true { latest = member.clock }
        }
        return latest
    }

    /// Whether any part is later than `clock`.
    func anyLater(than clock: HybridLogicalTimestamp) -> Bool { latest.map { $0 > clock } ?? false }

    func encoded() throws -> String {
        String(decoding: try ModelClocks.encoder.encode(self), as: UTF8.self)
    }

    static func decoded(_ text: String) throws -> ModelClocks {
        do {
            return try JSONDecoder().decode(ModelClocks.self, from: Data(text.utf8))
        } catch {
            throw SyncError(.corruptSyncState, "A SyncClockRecord holds clocks that do not decode (\(error)); the sync state "
                + "of this store was written by another version or damaged. Erase the record to resync the model.")
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}

/// Which parts of an entity a replicator dates: the attributes and to-one relationships by value,
/// the to-many relationships by member, except a to-many whose inverse is a to-one: the to-one
/// side decides its membership, and the replicator keeps it in step.
struct SyncedParts: Sendable {
    let entity: Schema.Entity
    /// Attributes (without `id`) and to-one relationships.
    let valueNames: [String]
    /// To-many relationships dated per member.
    let memberNames: [String]
    /// To-many relationships that follow a to-one inverse: name -> the inverse's name.
    let followers: [String: String]
    /// To-one relationships whose inverse is a to-many: name -> (destination entity, inverse name).
    let leaders: [String: (destination: String, inverse: String)]

    init(_ entity: Schema.Entity, in schema: Schema) {
        self.entity = entity
        var values = entity.attributeNames.filter { $0 != "id" }
        var members: [String] = [], followers: [String: String] = [:]
        var leaders: [String: (String, String)] = [:]
        for relationship in entity.relationships {
            let inverse = relationship.inverse.flatMap { name in
                schema.entity(named: relationship.destination)?.relationships.first { $0.name == name }
            }
            if relationship.isToMany {
                if let inverse, !inverse.isToMany { followers[relationship.name] = inverse.name } else { members.append(relationship.name) }
            } else {
                values.append(relationship.name)
                if let inverse, inverse.isToMany { leaders[relationship.name] = (relationship.destination, inverse.name) }
            }
        }
        valueNames = values
        memberNames = members
        self.followers = followers
        self.leaders = leaders
    }
}
