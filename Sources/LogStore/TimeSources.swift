import Foundation
import StoreProtocol

/// Where the times of one entity's records come from: its ``LogTimestamp`` attribute, or the
/// save time when `attribute` is `nil`, for every record from transaction `since` on.
///
/// A range read skips segments and records by the times written beside them (segment indexes,
/// record headers), and those came from the writer's configuration, not the reader's. So the
/// identity file records what writers used, and a read skips by time only where the writers
/// used the attribute its predicate bounds.
struct LogTimeSource: Codable, Equatable, Sendable {
    var attribute: String?
    var since: Int64
}

extension LogMeta {
    /// The time sources once a writer placing `entities` by `attributes` (entity name ->
    /// attribute) appends transaction `next`, or `nil` when they are already those.
    func timeSources(for entities: [String], attributes: [String: String], next: Int64) -> [String: LogTimeSource]? {
        var sources = timestamps ?? [:]
        var changed = false
        for entity in entities where sources[entity] == nil || sources[entity]?.attribute != attributes[entity] {
            sources[entity] = LogTimeSource(attribute: attributes[entity], since: next)
            changed = true
        }
        return changed ? sources : nil
    }

    /// The first transaction from which `entity`'s records are placed by `attribute`, so a read
    /// bounding it may skip segments that start there or later by their times; `nil` when none
    /// are (another attribute, the save time, or written before this was recorded).
    func skipsByTime(_ entity: String, attribute: String) -> Int64? {
        guard let source = timestamps?[entity], source.attribute == attribute else { return nil }
        return source.since
    }
}
