import StoreProtocol

/// A fetch whose whole filter is one equality, `attribute == constant` (either way round), with
/// no sort and no paging: `$0.id == value` and `$0.indexedAttribute == value`, the fetches by key.
/// Its slots come straight from the key index (`id`) or the attribute's index, and each row's
/// stored value is compared as a ``ColumnFilter`` compares it (`QueryComparison.evaluate` on the
/// column's value), skipping the general path's planning: reading the operands of a `&&`, looking
/// for range bounds and a walk in sort order, compiling a filter and filtering in chunks. With
/// `AttributeIndex.primaryKeys(equalTo:limit:)`, the table's part of a fetch by id went from
/// 10,400 to 2,300 instructions, of an indexed equality from 15,100 to 4,900 (callgrind).
///
/// The answer is `scan(_:)`'s: the same candidate slots as `indexedCandidateSlots(_:)` finds for
/// such a filter, in insertion order, and the same comparison; the tests compare it with
/// ``QueryEvaluator/fetch(_:over:)`` over `SnapshotTable.candidates(for:)` (EqualityLookupTests).
extension EntityRows {
    /// The rows `query` selects when it is such an equality that an index answers; `nil`
    /// otherwise (the general path decides): another filter, a sort or a page, an attribute
    /// without an index or column, an `id` that is not a UUID or String, a lookup that finds
    /// more than half the rows (a scan is cheaper), or a row whose stored value cannot decide it.
    /// - Complexity: O(*r* log *r*) for the *r* rows the index finds.
    func equalityLookup(_ query: FetchQuery) -> [DefaultSnapshot]? {
        // Without columns (a table without attribute indexes) the general path answers `nil` too.
        guard !columns.isEmpty, case .unsorted = query.sort, query.fetchOffset == nil, query.fetchLimit == nil,
              case let .expression(operand) = query.filter else { return nil }
        let attribute: QueryAttribute, constant: SnapshotValue
        switch operand {
        case let .comparison(.attribute(found), .equal, .constant(value)),
             let .comparison(.constant(value), .equal, .attribute(found)):
            (attribute, constant) = (found, value)
        default:
            return nil
        }
        var selection: [Int]
        if attribute.name == "id" {
            // `indexedCandidateSlots(_:)`'s one key: the key index holds UUID and String ids as they are.
            guard keyIndexFinds(attribute, constant) else { return nil }
            guard let slot = slotByKey[constant] else { return [] }
            selection = [slot]
        } else {
            // Found by position and read in place: `first(where:)` copied the index (and below, the
            // column) to hand it to its closure, about 700 instructions of an indexed equality.
            guard let index = indexes.indices.first(where: { indexes[$0].attribute == attribute }),
                  let keys = indexes[index].primaryKeys(equalTo: constant, limit: slotByKey.count / 2) else { return nil }
            selection = []
            selection.reserveCapacity(keys.count)
            for key in keys { if let slot = slotByKey[key] { selection.append(slot) } }
            if selection.count > 1 { selection.sort() }
        }
        guard !selection.isEmpty else { return [] }
        guard let column = columns.indices.first(where: { columns[$0].attribute == attribute }) else { return nil }
        var rows: [DefaultSnapshot] = []
        rows.reserveCapacity(selection.count)
        for slot in selection {
            // The scan's test (`ColumnFilter`), whose answers are the stored value compared as a
            // query compares; a value that does not decide it leaves the request to the evaluator.
            guard let stored = columns[column].value(at: slot), let matches = QueryComparison.equal.evaluate(stored, constant) else { return nil }
            if matches { rows.append(row(at: slot)) }
        }
        return rows
    }
}
